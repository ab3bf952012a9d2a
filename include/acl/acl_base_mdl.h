/*
 * aclrt: model base types. The runtime package ships this header empty, for programs that
 * include it by name; the model types belong to the model package, which this runtime does
 * not provide.
 */
