#ifndef NETBENCH_CNGTCP2_SHIM_H
#define NETBENCH_CNGTCP2_SHIM_H
#include <ngtcp2/ngtcp2.h>
#include <ngtcp2/ngtcp2_crypto.h>
#include <ngtcp2/ngtcp2_crypto_gnutls.h>
#include <gnutls/gnutls.h>
#include <gnutls/crypto.h>
#endif
