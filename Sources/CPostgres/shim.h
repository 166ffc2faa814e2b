#ifndef OPENPUSH_CPOSTGRES_SHIM_H
#define OPENPUSH_CPOSTGRES_SHIM_H
#include <libpq-fe.h>
#endif
