#ifndef OPENPUSH_CCURL_SHIM_H
#define OPENPUSH_CCURL_SHIM_H
#include <stddef.h>
#include <stdint.h>
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
static inline CURLcode openpush_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode openpush_curl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}
// CURLMsg's union member, as a function (Swift imports the union, but this keeps call sites plain).
static inline CURLcode openpush_curl_message_result(const CURLMsg *message) {
    return message->data.result;
}
#endif
