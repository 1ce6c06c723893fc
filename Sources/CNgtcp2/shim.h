#ifndef NETBENCH_CNGTCP2_SHIM_H
#define NETBENCH_CNGTCP2_SHIM_H
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <netinet/in.h>
#include <ngtcp2/ngtcp2.h>
#include <ngtcp2/ngtcp2_crypto.h>
#include <ngtcp2/ngtcp2_crypto_gnutls.h>
#include <gnutls/gnutls.h>
#include <gnutls/crypto.h>

/* ngtcp2 0.12 entry points are macros over *_versioned functions: Swift does not import
   function-like macros, so each one the QUIC module calls is wrapped here. */

// ngtcp2_settings_default is a macro over ngtcp2_settings_default_versioned.
static inline void netbench_ngtcp2_settings_default(ngtcp2_settings *s) {
    ngtcp2_settings_default_versioned(NGTCP2_SETTINGS_VERSION, s);
}

// ngtcp2_transport_params_default is a macro over its _versioned function.
static inline void netbench_ngtcp2_transport_params_default(ngtcp2_transport_params *p) {
    ngtcp2_transport_params_default_versioned(NGTCP2_TRANSPORT_PARAMS_VERSION, p);
}

// ngtcp2_conn_client_new is a macro over its _versioned function.
static inline int netbench_ngtcp2_conn_client_new(
    ngtcp2_conn **pconn, const ngtcp2_cid *dcid, const ngtcp2_cid *scid, const ngtcp2_path *path,
    const ngtcp2_callbacks *callbacks, const ngtcp2_settings *settings,
    const ngtcp2_transport_params *params, void *user_data) {
    return ngtcp2_conn_client_new_versioned(pconn, dcid, scid, path, NGTCP2_PROTO_VER_V1,
                                            NGTCP2_CALLBACKS_VERSION, callbacks,
                                            NGTCP2_SETTINGS_VERSION, settings,
                                            NGTCP2_TRANSPORT_PARAMS_VERSION, params, NULL,
                                            user_data);
}

// ngtcp2_conn_server_new is a macro over its _versioned function.
static inline int netbench_ngtcp2_conn_server_new(
    ngtcp2_conn **pconn, const ngtcp2_cid *dcid, const ngtcp2_cid *scid, const ngtcp2_path *path,
    uint32_t version, const ngtcp2_callbacks *callbacks, const ngtcp2_settings *settings,
    const ngtcp2_transport_params *params, void *user_data) {
    return ngtcp2_conn_server_new_versioned(pconn, dcid, scid, path, version,
                                            NGTCP2_CALLBACKS_VERSION, callbacks,
                                            NGTCP2_SETTINGS_VERSION, settings,
                                            NGTCP2_TRANSPORT_PARAMS_VERSION, params, NULL,
                                            user_data);
}

// ngtcp2_conn_read_pkt is a macro over its _versioned function; `ecn` is the datagram's ECN
// codepoint as the socket received it (NGTCP2_ECN_*), which ngtcp2 counts into its ACK_ECN frames.
static inline int netbench_ngtcp2_conn_read_pkt(ngtcp2_conn *conn, const ngtcp2_path *path,
                                                const uint8_t *pkt, size_t pktlen, uint32_t ecn,
                                                ngtcp2_tstamp ts) {
    ngtcp2_pkt_info pi = {0};
    pi.ecn = ecn;
    return ngtcp2_conn_read_pkt_versioned(conn, path, NGTCP2_PKT_INFO_VERSION, &pi, pkt, pktlen,
                                          ts);
}

// ngtcp2_conn_writev_stream is a macro over its _versioned function; the ngtcp2_vec cast
// lives here because nghttp3_vec and ngtcp2_vec are distinct (layout-identical) C types.
// `*ecn` gets the ECN codepoint ngtcp2 asks the packet to be sent with (NGTCP2_ECN_*).
static inline ngtcp2_ssize netbench_ngtcp2_conn_writev_stream(
    ngtcp2_conn *conn, ngtcp2_path *path, uint8_t *dest, size_t destlen, ngtcp2_ssize *pdatalen,
    uint32_t flags, int64_t stream_id, const void *datav, size_t datavcnt, uint32_t *ecn, ngtcp2_tstamp ts) {
    ngtcp2_pkt_info pi = {0};
    ngtcp2_ssize n = ngtcp2_conn_writev_stream_versioned(conn, path, NGTCP2_PKT_INFO_VERSION, &pi, dest,
                                                         destlen, pdatalen, flags, stream_id,
                                                         (const ngtcp2_vec *)datav, datavcnt, ts);
    *ecn = pi.ecn;
    return n;
}

// ngtcp2_conn_write_connection_close is a macro over its _versioned function.
static inline ngtcp2_ssize netbench_ngtcp2_conn_write_connection_close(
    ngtcp2_conn *conn, ngtcp2_path *path, uint8_t *dest, size_t destlen,
    const ngtcp2_connection_close_error *ccerr, ngtcp2_tstamp ts) {
    ngtcp2_pkt_info pi;
    return ngtcp2_conn_write_connection_close_versioned(conn, path, NGTCP2_PKT_INFO_VERSION, &pi,
                                                        dest, destlen, ccerr, ts);
}

// ngtcp2_conn_get_conn_stat is a macro over its _versioned function.
static inline void netbench_ngtcp2_conn_get_conn_stat(ngtcp2_conn *conn, ngtcp2_conn_stat *cstat) {
    ngtcp2_conn_get_conn_stat_versioned(conn, NGTCP2_CONN_STAT_VERSION, cstat);
}

// ngtcp2_conn_set_early_remote_transport_params is a macro over its _versioned function.
static inline void netbench_ngtcp2_conn_set_early_remote_transport_params(
    ngtcp2_conn *conn, const ngtcp2_transport_params *params) {
    ngtcp2_conn_set_early_remote_transport_params_versioned(conn, NGTCP2_TRANSPORT_PARAMS_VERSION,
                                                           params);
}

// ngtcp2_printf is variadic, which Swift cannot implement: this logger writes to stderr
// (a C global Swift 6 rejects) and is only installed when debug logging is asked for.
static inline void netbench_ngtcp2_log_printf(void *user_data, const char *fmt, ...) {
    va_list ap;
    (void)user_data;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

// Returns the variadic logger as a plain pointer, since Swift cannot name it directly.
static inline ngtcp2_printf netbench_ngtcp2_debug_logger(void) { return netbench_ngtcp2_log_printf; }

// NGTCP2_SECONDS and friends are cast macros that Swift does not import.
static inline uint64_t netbench_ngtcp2_max_tstamp(void) { return UINT64_MAX; }

// gnutls_free is a C global function pointer, which Swift 6 strict concurrency rejects.
static inline void netbench_gnutls_free(void *p) { gnutls_free(p); }

// GNUTLS_CLIENT is both an enum case and a macro ("ambiguous use" in Swift): bind it here.
// GNUTLS_KEY_SHARE_TOP: one key share (X25519, the first group of quicPriority), as OpenSSL's
// client over TCP and Chromium send, instead of GnuTLS's default of two (X25519 and P-256),
// which cost every QUIC handshake a P-256 key generation the TCP handshakes do not make.
static inline unsigned int netbench_gnutls_client_flags(void) {
    return GNUTLS_CLIENT | GNUTLS_ENABLE_EARLY_DATA | GNUTLS_NO_END_OF_EARLY_DATA | GNUTLS_KEY_SHARE_TOP;
}

// GNUTLS_SERVER has the same enum/macro ambiguity; the flags match ngtcp2's QUIC server example.
static inline unsigned int netbench_gnutls_server_flags(void) {
    return GNUTLS_SERVER | GNUTLS_ENABLE_EARLY_DATA | GNUTLS_NO_AUTO_SEND_TICKET |
           GNUTLS_NO_END_OF_EARLY_DATA;
}

// Builds an AF_INET sockaddr from a host-order address and port (htonl/htons are macros).
static inline void netbench_sockaddr_in_set(struct sockaddr_in *sa, uint32_t addr, uint16_t port) {
    memset(sa, 0, sizeof(*sa));
    sa->sin_family = AF_INET;
    sa->sin_addr.s_addr = htonl(addr);
    sa->sin_port = htons(port);
}

// Reads an AF_INET sockaddr back into host order (ntohl/ntohs are macros); 0 if not AF_INET.
static inline int netbench_sockaddr_in_get(const struct sockaddr *sa, uint32_t *addr,
                                           uint16_t *port) {
    if (sa == NULL || sa->sa_family != AF_INET) {
        return -1;
    }
    const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
    *addr = ntohl(in->sin_addr.s_addr);
    *port = ntohs(in->sin_port);
    return 0;
}

/* ClientHello padding for QUIC (GnuTLS): an extension of a GREASE type (RFC 8701) whose data is
   zero bytes, as COpenSSL's netbench_SSL_CTX_add_client_hello_padding does for TCP. Its length is
   kept in the session's extension data. */
#define NETBENCH_QUIC_CLIENT_HELLO_PAD_MAX 4096
/* TLS's ClientHelloPadding.extensionType: a test in TransportTests holds the two equal. */
#define NETBENCH_QUIC_CLIENT_HELLO_PAD_TYPE 0x1A1A

static int netbench_quic_pad_recv(gnutls_session_t session, const unsigned char *data, size_t len) {
    (void)session; (void)data; (void)len;
    return 0;
}

static int netbench_quic_pad_send(gnutls_session_t session, gnutls_buffer_t extdata) {
    static const unsigned char zeros[NETBENCH_QUIC_CLIENT_HELLO_PAD_MAX];
    gnutls_ext_priv_data_t priv = NULL;
    if (gnutls_ext_get_data(session, NETBENCH_QUIC_CLIENT_HELLO_PAD_TYPE, &priv) < 0) return 0;
    size_t len = (size_t)(uintptr_t)priv;
    if (len == 0 || len > NETBENCH_QUIC_CLIENT_HELLO_PAD_MAX) return 0;
    int rv = gnutls_buffer_append_data(extdata, zeros, len);
    return rv < 0 ? rv : (int)len;
}

/* 0 on success, a GnuTLS error code otherwise. */
static inline int netbench_gnutls_add_client_hello_padding(gnutls_session_t session, size_t len) {
    if (len == 0 || len > NETBENCH_QUIC_CLIENT_HELLO_PAD_MAX) return GNUTLS_E_INVALID_REQUEST;
    int rv = gnutls_session_ext_register(session, "netbench-pad", NETBENCH_QUIC_CLIENT_HELLO_PAD_TYPE,
                                         GNUTLS_EXT_TLS, netbench_quic_pad_recv, netbench_quic_pad_send, NULL, NULL, NULL,
                                         GNUTLS_EXT_FLAG_CLIENT_HELLO | GNUTLS_EXT_FLAG_TLS);
    if (rv < 0) return rv;
    gnutls_ext_set_data(session, NETBENCH_QUIC_CLIENT_HELLO_PAD_TYPE, (gnutls_ext_priv_data_t)(uintptr_t)len);
    return 0;
}

#endif
