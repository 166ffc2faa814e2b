#ifndef OPENPUSH_CCURL_SHIM_H
#define OPENPUSH_CCURL_SHIM_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <curl/curl.h>

// `curl_easy_setopt` and `curl_easy_getinfo` are variadic: one typed function per argument kind.
static inline CURLcode openpush_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode openpush_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode openpush_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode openpush_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode openpush_curl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
typedef size_t (*openpush_curl_write_callback)(char *data, size_t size, size_t count, void *user);
static inline CURLcode openpush_curl_easy_setopt_write_function(CURL *handle, openpush_curl_write_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
}
// The address libcurl is about to connect to is handed to this callback, which opens the socket
// (or refuses, with CURL_SOCKET_BAD): the last place to check a peer.
typedef curl_socket_t (*openpush_curl_opensocket_callback)(void *user, curlsocktype purpose, struct curl_sockaddr *address);
static inline CURLcode openpush_curl_easy_setopt_opensocket_function(CURL *handle, openpush_curl_opensocket_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, callback);
}
static inline curl_socket_t openpush_curl_socket_bad(void) {
    return CURL_SOCKET_BAD;
}
static inline curl_socket_t openpush_curl_open_socket(const struct curl_sockaddr *address) {
    return socket(address->family, address->socktype, address->protocol);
}
// The IPv4 (4 bytes) or IPv6 (16 bytes) address of `address` copied to `bytes`; 0 for any other family.
static inline size_t openpush_curl_sockaddr_bytes(const struct curl_sockaddr *address, unsigned char bytes[16]) {
    if (address->family == AF_INET && address->addrlen >= sizeof(struct sockaddr_in)) {
        memcpy(bytes, &((const struct sockaddr_in *)&address->addr)->sin_addr, 4);
        return 4;
    }
    if (address->family == AF_INET6 && address->addrlen >= sizeof(struct sockaddr_in6)) {
        memcpy(bytes, &((const struct sockaddr_in6 *)&address->addr)->sin6_addr, 16);
        return 16;
    }
    return 0;
}
static inline CURLcode openpush_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode openpush_curl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline unsigned int openpush_curl_version_num(void) {
    return curl_version_info(CURLVERSION_NOW)->version_num;
}
// `curl_multi_setopt` is variadic too.
static inline CURLMcode openpush_curl_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return curl_multi_setopt(handle, option, value);
}
// The value of the last response's header `name` (any case; the first if repeated), or NULL.
// Valid until the handle is reused or cleaned up.
static inline const char *openpush_curl_response_header(CURL *handle, const char *name) {
    struct curl_header *header = NULL;
    if (curl_easy_header(handle, name, 0, CURLH_HEADER, -1, &header) != CURLHE_OK || header == NULL) return NULL;
    return header->value;
}
// CURLMsg's union member, as a function (Swift imports the union, but this keeps call sites plain).
static inline CURLcode openpush_curl_message_result(const CURLMsg *message) {
    return message->data.result;
}
#endif
