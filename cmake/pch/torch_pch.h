// Precompiled for the targets that use LibTorch (cmake/PacerPch.cmake): ATen's headers are about
// 8 s of every such translation unit's compile on their own; precompiled, they are parsed once per
// build. Measured: adding the C++ frontend's torch/nn modules doubled the PCH (467 MB) and made
// every TU that loads it 3-5 s slower, more than the ten model sources gained.
// Never included by a source file; each source still includes what it uses.
#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
