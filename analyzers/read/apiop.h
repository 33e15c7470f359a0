/*
 * The op of a hooked function by its API name ("cuMemcpyPeerAsync" ->
 * "peer_copy"), from the library's hook tables: for traces written before
 * events had "op".
 */
#ifndef PW_AN_APIOP_H
#define PW_AN_APIOP_H

/* NULL for a name no table has. */
const char *pw_op_of_api(const char *api);

#endif
