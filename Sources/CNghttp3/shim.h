#ifndef NETBENCH_CNGHTTP3_SHIM_H
#define NETBENCH_CNGHTTP3_SHIM_H
#include <nghttp3/nghttp3.h>

// nghttp3_settings_default is a macro over nghttp3_settings_default_versioned.
static inline void netbench_nghttp3_settings_default(nghttp3_settings *s) {
    nghttp3_settings_default_versioned(NGHTTP3_SETTINGS_VERSION, s);
}

// nghttp3_conn_client_new is a macro over its _versioned function.
static inline int netbench_nghttp3_conn_client_new(nghttp3_conn **pconn,
                                                   const nghttp3_callbacks *callbacks,
                                                   const nghttp3_settings *settings,
                                                   void *user_data) {
    return nghttp3_conn_client_new_versioned(pconn, NGHTTP3_CALLBACKS_VERSION, callbacks,
                                             NGHTTP3_SETTINGS_VERSION, settings, NULL, user_data);
}

// nghttp3_conn_server_new is a macro over its _versioned function.
static inline int netbench_nghttp3_conn_server_new(nghttp3_conn **pconn,
                                                   const nghttp3_callbacks *callbacks,
                                                   const nghttp3_settings *settings,
                                                   void *user_data) {
    return nghttp3_conn_server_new_versioned(pconn, NGHTTP3_CALLBACKS_VERSION, callbacks,
                                             NGHTTP3_SETTINGS_VERSION, settings, NULL, user_data);
}

#endif
