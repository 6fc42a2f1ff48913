// The one source of a precompiled-header donor target (cmake/PacerPch.cmake).
