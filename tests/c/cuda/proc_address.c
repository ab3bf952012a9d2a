/* cuGetProcAddress: versions, statuses, and every exported function reachable by its CUDA
 * name. Run with the list of exported cu* symbols as argv[1] (one a line). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>

#include "check.h"

typedef CUresult (*get_proc_v1_t)(const char *, void **, int, cuuint64_t);

/* The CUDA name of an exported symbol: without a _ptsz / _ptds suffix (returned is whether
 * it had one: a per-thread default stream variant) and without a _vN suffix. */
static int base_name(const char *sym, char *out, size_t n) {
    int per_thread = 0;
    snprintf(out, n, "%s", sym);
    char *v = strrchr(out, '_');
    if (v && (strcmp(v, "_ptsz") == 0 || strcmp(v, "_ptds") == 0)) {
        *v = 0;
        per_thread = 1;
        v = strrchr(out, '_');
    }
    if (v && v[1] == 'v' && v[2] >= '0' && v[2] <= '9') *v = 0;
    return per_thread;
}

int main(int argc, char **argv) {
    void *f = NULL;
    CUdriverProcAddressQueryResult status = 99;
    /* No initialisation needed. */
    OK(cuGetProcAddress("cuInit", &f, 2000, CU_GET_PROC_ADDRESS_DEFAULT, &status));
    ASSERT(f == (void *)cuInit && status == CU_GET_PROC_ADDRESS_SUCCESS);
    OK(cuInit(0));
    OK(cuGetProcAddress("cuMemAlloc", &f, 12090, 0, &status));
    ASSERT(f == (void *)cuMemAlloc_v2);
    OK(cuGetProcAddress("cuCtxCreate", &f, 12040, 0, &status));
    ASSERT(f == (void *)cuCtxCreate_v3);
    OK(cuGetProcAddress("cuCtxCreate", &f, 12050, 0, NULL));
    ASSERT(f == (void *)cuCtxCreate_v4);
    OK(cuGetProcAddress("cuCtxCreate", &f, 3020, 0, NULL));
    ASSERT(f == (void *)cuCtxCreate_v2);
    OK(cuGetProcAddress("cuStreamDestroy", &f, 4000, CU_GET_PROC_ADDRESS_LEGACY_STREAM, NULL));
    ASSERT(f == (void *)cuStreamDestroy_v2);
    OK(cuGetProcAddress("cuEventElapsedTime", &f, 12080, 0, NULL));
    ASSERT(f == (void *)cuEventElapsedTime_v2);
    OK(cuGetProcAddress("cuGetProcAddress", &f, 12000, 0, NULL));
    ASSERT(f == (void *)cuGetProcAddress_v2);

    /* Unknown names and too old versions: success with NULL and the status in the CUDA 12
     * form (as the driver answers), CUDA_ERROR_NOT_FOUND in the 11.3 form. */
    f = (void *)1;
    OK(cuGetProcAddress("cuNoSuchFunction", &f, 12090, 0, &status));
    ASSERT(f == NULL && status == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
    f = (void *)1;
    OK(cuGetProcAddress("cuLaunchHostFunc", &f, 9000, 0, &status));
    ASSERT(f == NULL && status == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
    OK(cuGetProcAddress("cuNoSuchFunction", &f, 12090, 0, NULL));
    ASSERT(f == NULL);
#undef cuGetProcAddress
    CUresult cuGetProcAddress(const char *, void **, int, cuuint64_t); /* the 11.3 form */
    EXPECT(cuGetProcAddress("cuNoSuchFunction", &f, 12090, 0), CUDA_ERROR_NOT_FOUND);
    EXPECT(cuGetProcAddress("cuLaunchHostFunc", &f, 9000, 0), CUDA_ERROR_NOT_FOUND);
#define cuGetProcAddress cuGetProcAddress_v2
    EXPECT(cuGetProcAddress(NULL, &f, 12090, 0, &status), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGetProcAddress("cuInit", NULL, 12090, 0, &status), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGetProcAddress("cuInit", &f, 12090, 8, &status), CUDA_ERROR_INVALID_VALUE);

    /* The 11.3 form, under the plain name, takes no status. */
    get_proc_v1_t v1 = (get_proc_v1_t)dlsym(RTLD_DEFAULT, "cuGetProcAddress");
    ASSERT(v1 != NULL && (void *)v1 != (void *)cuGetProcAddress_v2);
    OK(v1("cuMemFree", &f, 11000, 0));
    ASSERT(f == (void *)cuMemFree_v2);

    /* First versions with 32-bit device pointers are there and refuse. */
    CUresult (*mem_alloc_v1)(unsigned *, unsigned) = NULL;
    OK(cuGetProcAddress("cuMemAlloc", (void **)&mem_alloc_v1, 2000, 0, NULL));
    unsigned small = 0;
    EXPECT(mem_alloc_v1(&small, 16), CUDA_ERROR_NOT_SUPPORTED);

    /* Every exported cu* function is what some (name, version) resolves to. */
    if (argc > 1) {
        FILE *list = fopen(argv[1], "r");
        ASSERT(list != NULL);
        char sym[256], name[256];
        int checked = 0;
        while (fscanf(list, "%255s", sym) == 1) {
            void *want = dlsym(RTLD_DEFAULT, sym);
            ASSERT(want != NULL);
            cuuint64_t flags = base_name(sym, name, sizeof name)
                                   ? CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM
                                   : CU_GET_PROC_ADDRESS_DEFAULT;
            int found = 0;
            for (int version = 2000; version <= 13000 && !found; version += 10) {
                if (cuGetProcAddress(name, &f, version, flags, NULL) == CUDA_SUCCESS && f == want)
                    found = 1;
            }
            if (!found && v1("cuGetProcAddress", &f, 11030, 0) == CUDA_SUCCESS && f == want)
                found = 1;
            if (!found) {
                fprintf(stderr, "%s is not reachable through cuGetProcAddress(\"%s\")\n", sym, name);
                return 1;
            }
            checked++;
        }
        fclose(list);
        ASSERT(checked > 150);
        printf("proc_address: %d exported functions reachable\n", checked);
    }
    puts("proc_address: ok");
    return 0;
}
