#ifndef OPENPUSH_CZLIB_SHIM_H
#define OPENPUSH_CZLIB_SHIM_H
#include <zlib.h>

/* deflateInit2 and inflateInit2 are macros (they pass the library version and the stream's
   size), which Swift cannot call. windowBits + 16 writes a gzip header and trailer; + 32
   reads either a gzip or a zlib stream. */
static inline int openpush_deflate_init_gzip(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, MAX_WBITS + 16, 8, Z_DEFAULT_STRATEGY);
}

static inline int openpush_inflate_init_gzip(z_stream *stream) {
    return inflateInit2(stream, MAX_WBITS + 32);
}
#endif
