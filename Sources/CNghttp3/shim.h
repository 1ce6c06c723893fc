#ifndef NETBENCH_CNGHTTP3_SHIM_H
#define NETBENCH_CNGHTTP3_SHIM_H
#include <nghttp3/nghttp3.h>
#endif
