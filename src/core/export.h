#pragma once
// PACER_API: what the pacer executable exports to the libraries it loads (algorithm plugins
// built against the SDK, the Python bridge). The layers compile with hidden visibility
// (-fvisibility=hidden), so a symbol a plugin may reference must carry this mark: the SDK's
// classes and functions (<pacer/algorithm.h>), and the few internals the Python bridge uses.
// A class marked PACER_API exports its members, vtable and type_info, so a plugin's subclass
// of TrainingAlgorithm, or an InputError it throws, is the same type on both sides.
//
//   class PACER_API Network { ... };
//   PACER_API double cosine_decay(double progress);
#if defined(__GNUC__) || defined(__clang__)
#define PACER_API __attribute__((visibility("default")))
#else
#define PACER_API
#endif
