#ifndef OPENPUSH_CMICROHTTPD_SHIM_H
#define OPENPUSH_CMICROHTTPD_SHIM_H
// microhttpd.h expects these to be included first.
#include <stdint.h>
#include <stdarg.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

// The info getters are variadic, which Swift cannot import.

/// The port the daemon is bound to, or 0 if unknown.
static inline uint16_t openpush_mhd_bind_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/// The peer address of a connection, or NULL.
static inline const struct sockaddr *openpush_mhd_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}
#endif
