// zlib (Debian zlib1g-dev): DEFLATE for HdrHistogram's compressed histogram encoding.
#include <zlib.h>
