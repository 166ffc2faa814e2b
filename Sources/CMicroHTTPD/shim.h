#ifndef OPENPUSH_CMICROHTTPD_SHIM_H
#define OPENPUSH_CMICROHTTPD_SHIM_H
// microhttpd.h expects these to be included first.
#include <stdint.h>
#include <stdarg.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>
#endif
