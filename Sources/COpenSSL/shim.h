#ifndef NETBENCH_COPENSSL_SHIM_H
#define NETBENCH_COPENSSL_SHIM_H
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/pem.h>
#include <openssl/bn.h>

// Function-like macros and SSL_OP_BIT(n) constants are not imported into Swift; each wrapper
// below replaces exactly one of them and does nothing else.

// SSL_CTX_set_min_proto_version is a macro over SSL_CTX_ctrl.
static inline int netbench_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}

// SSL_CTX_set_max_proto_version is a macro over SSL_CTX_ctrl.
static inline int netbench_SSL_CTX_set_max_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_max_proto_version(ctx, version);
}

// SSL_CTX_set_mode is a macro over SSL_CTX_ctrl.
static inline long netbench_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_mode(ctx, mode);
}

// SSL_CTX_set_session_cache_mode is a macro over SSL_CTX_ctrl.
static inline long netbench_SSL_CTX_set_session_cache_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_session_cache_mode(ctx, mode);
}

// SSL_CTX_set_read_ahead is a macro over SSL_CTX_ctrl.
static inline long netbench_SSL_CTX_set_read_ahead(SSL_CTX *ctx, int yes) {
    return SSL_CTX_set_read_ahead(ctx, yes);
}

// SSL_CTX_set_tlsext_servername_callback is a macro that casts the callback for SSL_CTX_callback_ctrl.
static inline long netbench_SSL_CTX_set_tlsext_servername_callback(
        SSL_CTX *ctx, int (*cb)(SSL *ssl, int *alert, void *arg)) {
    return SSL_CTX_set_tlsext_servername_callback(ctx, cb);
}

// SSL_CTX_set_tlsext_servername_arg is a macro over SSL_CTX_ctrl.
static inline long netbench_SSL_CTX_set_tlsext_servername_arg(SSL_CTX *ctx, void *arg) {
    return SSL_CTX_set_tlsext_servername_arg(ctx, arg);
}

// SSL_set_tlsext_host_name is a macro over SSL_ctrl (it sets the SNI a client sends).
static inline int netbench_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

// BIO_get_mem_data is a macro over BIO_ctrl.
static inline long netbench_BIO_get_mem_data(BIO *bio, char **data) {
    return BIO_get_mem_data(bio, data);
}

// SSL_OP_NO_TICKET is built with SSL_OP_BIT(n), which Swift does not import.
static inline uint64_t netbench_SSL_OP_NO_TICKET(void) { return SSL_OP_NO_TICKET; }

// SSL_OP_NO_COMPRESSION is built with SSL_OP_BIT(n), which Swift does not import.
static inline uint64_t netbench_SSL_OP_NO_COMPRESSION(void) { return SSL_OP_NO_COMPRESSION; }

// SSL_OP_NO_RENEGOTIATION is built with SSL_OP_BIT(n), which Swift does not import.
static inline uint64_t netbench_SSL_OP_NO_RENEGOTIATION(void) { return SSL_OP_NO_RENEGOTIATION; }

// SSL_SESS_CACHE_NO_INTERNAL is an OR of two macros; spelled once here.
static inline long netbench_SSL_SESS_CACHE_CLIENT_EXTERNAL(void) {
    return SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL;
}

/* ClientHello padding: an extension of a GREASE type (RFC 8701, which servers must ignore) whose
   data is `len` zero bytes, in every ClientHello of the context. Browsers' ClientHellos carry a
   post-quantum hybrid key share (X25519MLKEM768, 1,216 bytes) that OpenSSL 3.0 cannot offer; this
   gives netbench's client hellos the same length on the wire. */
#define NETBENCH_CLIENT_HELLO_PAD_MAX 4096

static int netbench_client_hello_pad_add(SSL *s, unsigned int ext_type, unsigned int context,
                                         const unsigned char **out, size_t *outlen, X509 *x,
                                         size_t chainidx, int *al, void *add_arg) {
    static const unsigned char zeros[NETBENCH_CLIENT_HELLO_PAD_MAX];
    (void)s; (void)ext_type; (void)context; (void)x; (void)chainidx; (void)al;
    *out = zeros;
    *outlen = (size_t)(uintptr_t)add_arg;
    return 1;
}

/* 1 on success; 0 when `len` is out of range or OpenSSL refuses the extension type. */
static inline int netbench_SSL_CTX_add_client_hello_padding(SSL_CTX *ctx, unsigned int ext_type, size_t len) {
    if (len == 0 || len > NETBENCH_CLIENT_HELLO_PAD_MAX) return 0;
    return SSL_CTX_add_custom_ext(ctx, ext_type, SSL_EXT_CLIENT_HELLO, netbench_client_hello_pad_add, NULL,
                                  (void *)(uintptr_t)len, NULL, NULL);
}

#endif
