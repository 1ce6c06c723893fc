// libpng 1.6 (Debian libpng-dev): decodes the PNG frames browsers paint (Chromium's screencast,
// Firefox's captureScreenshot) for visual metrics. Only the simplified API (png_image_*), which
// reports errors in the struct instead of longjmp-ing through Swift frames.
#include <png.h>

// PNG_FORMAT_RGBA is a composite macro Swift does not import: 8-bit red, green, blue, alpha.
static inline png_uint_32 cpng_format_rgba(void) { return PNG_FORMAT_RGBA; }
