#!/usr/bin/env bash
# Writes tests/c/test_vendor_symbols.c from include/acl/vendor-functions.txt (the vendor runtime
# function names, one per line): a program that takes the address of every one of them, so it
# compiles only if the headers declare them all and links only if libascendcl exports them all.
# scripts/test.d/20-c.sh checks that the committed file is what this script writes.
# Usage: scripts/gen-vendor-symbols-test.sh [OUTPUT]   (default tests/c/test_vendor_symbols.c)
set -euo pipefail
cd "$(dirname "$0")/.."
output="${1:-tests/c/test_vendor_symbols.c}"
list=include/acl/vendor-functions.txt
count="$(grep -c . "$list")"
{
    cat <<'HEAD'
/* Written by scripts/gen-vendor-symbols-test.sh from include/acl/vendor-functions.txt.
 *
 * Takes the address of every vendor runtime function: compiling (-std=c11 -Wall -Werror -O0)
 * proves the headers declare each one, linking proves libascendcl exports each one. */
#include <stdio.h>

#include "acl/acl.h"
#include "acl/acl_rt_memory_soma.h"

/* Some of the functions are deprecated; naming them is the point here. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

/* Any function pointer converts to this type and back (C11 6.3.2.3). */
typedef void (*any_function)(void);

static const struct {
    const char *name;
    any_function address;
} functions[] = {
HEAD
    while read -r name; do
        [ -n "$name" ] || continue
        printf '    {"%s", (any_function)%s},\n' "$name" "$name"
    done <"$list"
    cat <<TAIL
};

int main(void)
{
    const size_t count = sizeof functions / sizeof functions[0];
    int failures = 0;
    for (size_t i = 0; i < count; i++) {
        if (functions[i].address == NULL) {
            fprintf(stderr, "%s has no address\n", functions[i].name);
            failures++;
        }
        for (size_t j = 0; j < i; j++) {
            if (functions[j].address == functions[i].address) {
                fprintf(stderr, "%s and %s share an address\n", functions[j].name,
                        functions[i].name);
                failures++;
            }
        }
    }
    if (count != $count) {
        fprintf(stderr, "%zu functions, expected $count\n", count);
        failures++;
    }
    if (failures) {
        printf("test_vendor_symbols: FAILED (%d)\n", failures);
        return 1;
    }
    printf("test_vendor_symbols: ok (%zu functions)\n", count);
    return 0;
}
TAIL
} >"$output"
