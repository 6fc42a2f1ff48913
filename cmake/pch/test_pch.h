// Precompiled for the test executables (cmake/PacerPch.cmake): LibTorch's headers and GoogleTest's.
// Never included by a source file.
#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <gtest/gtest.h>
