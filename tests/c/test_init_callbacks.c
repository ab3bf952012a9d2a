/* aclInitCallbackRegister / aclFinalizeCallbackRegister: the callbacks aclInit and aclFinalize
 * call, by registration type in the vendor's order (init: ACL_MODEL, ACL_OP_EXECUTOR only with a
 * configuration path, ACL_DVPP, OTHER; finalize: ACL_OP_COMPILER, ACL_MODEL, ACL_DVPP, OTHER),
 * the configuration text they get, a failing callback failing the call, registration rules and
 * codes. */
#include "check.h"

static char g_log[256];
static char g_text[64];
static size_t g_len;
static aclError g_fail_with;

static void note(const char *what)
{
    strncat(g_log, what, sizeof g_log - strlen(g_log) - 1);
}

#define INIT_CB(name)                                                                    \
    static aclError name(const char *configStr, size_t len, void *userData)              \
    {                                                                                    \
        note(#name);                                                                     \
        note((const char *)userData);                                                    \
        snprintf(g_text, sizeof g_text, "%s", configStr);                                \
        g_len = len;                                                                     \
        return ACL_SUCCESS;                                                              \
    }
INIT_CB(model)
INIT_CB(executor)
INIT_CB(dvpp)
INIT_CB(other1)
INIT_CB(other2)
INIT_CB(compiler)
INIT_CB(late)

static aclError failing_init(const char *configStr, size_t len, void *userData)
{
    (void)configStr;
    (void)len;
    (void)userData;
    note("failing_init;");
    return g_fail_with;
}

#define FINI_CB(name)                                                                    \
    static aclError name(void *userData)                                                 \
    {                                                                                    \
        note(#name);                                                                     \
        note((const char *)userData);                                                    \
        return ACL_SUCCESS;                                                              \
    }
FINI_CB(f_model)
FINI_CB(f_compiler)
FINI_CB(f_dvpp)
FINI_CB(f_other)
FINI_CB(f_tdt)

static aclError failing_finalize(void *userData)
{
    (void)userData;
    note("failing_finalize;");
    return g_fail_with;
}

int main(void)
{
    uint32_t count = 0;
    char path[] = "/tmp/aclrt_init_cb_XXXXXX";
    int fd;

    /* Registration works before aclInit; one callback per type but for ACL_REG_TYPE_OTHER. */
    EXPECT_OK(aclInitCallbackRegister(ACL_REG_TYPE_OTHER, other1, ";"));
    EXPECT_OK(aclInitCallbackRegister(ACL_REG_TYPE_ACL_MODEL, model, ";"));
    EXPECT_OK(aclInitCallbackRegister(ACL_REG_TYPE_OTHER, other2, ";"));
    EXPECT_OK(aclInitCallbackRegister(ACL_REG_TYPE_ACL_DVPP, dvpp, ";"));
    EXPECT_OK(aclInitCallbackRegister(ACL_REG_TYPE_ACL_OP_EXECUTOR, executor, ";"));
    EXPECT_OK(aclInitCallbackRegister(ACL_REG_TYPE_ACL_OP_COMPILER, compiler, ";"));
    EXPECT_CODE(aclInitCallbackRegister(ACL_REG_TYPE_ACL_MODEL, other1, ";"),
                ACL_ERROR_INTERNAL_ERROR);
    EXPECT_CODE(aclInitCallbackRegister(ACL_REG_TYPE_ACL_MODEL, NULL, ";"), ACL_ERROR_INVALID_PARAM);
    CHECK(strcmp(g_log, "") == 0);

    /* No configuration path: no ACL_OP_EXECUTOR, an empty text; ACL_OP_COMPILER never at init. */
    REQUIRE_OK(aclInit(NULL));
    CHECK(strcmp(g_log, "model;dvpp;other1;other2;") == 0);
    CHECK(g_len == 0 && g_text[0] == 0);
    /* Registered while initialised: called at once, its return ignored. */
    g_log[0] = 0;
    EXPECT_OK(aclInitCallbackRegister(ACL_REG_TYPE_ACL_TDT_CHANNEL, late, ";"));
    CHECK(strcmp(g_log, "late;") == 0);
    g_fail_with = 4321;
    g_log[0] = 0;
    EXPECT_OK(aclInitCallbackRegister(ACL_REG_TYPE_ACL_RETR, failing_init, NULL));
    CHECK(strcmp(g_log, "failing_init;") == 0);
    EXPECT_OK(aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_RETR, failing_init));
    EXPECT_OK(aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_TDT_CHANNEL, late));

    /* Finalize callbacks, in the vendor's type order; ACL_TDT_CHANNEL is never called. */
    EXPECT_OK(aclFinalizeCallbackRegister(ACL_REG_TYPE_OTHER, f_other, ";"));
    EXPECT_OK(aclFinalizeCallbackRegister(ACL_REG_TYPE_ACL_DVPP, f_dvpp, ";"));
    EXPECT_OK(aclFinalizeCallbackRegister(ACL_REG_TYPE_ACL_MODEL, f_model, ";"));
    EXPECT_OK(aclFinalizeCallbackRegister(ACL_REG_TYPE_ACL_OP_COMPILER, f_compiler, ";"));
    EXPECT_OK(aclFinalizeCallbackRegister(ACL_REG_TYPE_ACL_TDT_CHANNEL, f_tdt, ";"));
    EXPECT_CODE(aclFinalizeCallbackRegister(ACL_REG_TYPE_ACL_DVPP, f_other, ";"),
                ACL_ERROR_INTERNAL_ERROR);
    EXPECT_CODE(aclFinalizeCallbackRegister(ACL_REG_TYPE_OTHER, NULL, ";"), ACL_ERROR_INVALID_PARAM);
    /* A failing finalize callback fails aclFinalize, which leaves the runtime initialised. */
    g_fail_with = 1234;
    EXPECT_OK(aclFinalizeCallbackRegister(ACL_REG_TYPE_OTHER, failing_finalize, NULL));
    g_log[0] = 0;
    EXPECT_CODE(aclFinalize(), 1234);
    CHECK(strcmp(g_log, "f_compiler;f_model;f_dvpp;f_other;failing_finalize;") == 0);
    EXPECT_OK(aclrtGetDeviceCount(&count));
    CHECK(count > 0);
    EXPECT_OK(aclFinalizeCallbackUnRegister(ACL_REG_TYPE_OTHER, failing_finalize));
    g_log[0] = 0;
    EXPECT_OK(aclFinalize());
    CHECK(strcmp(g_log, "f_compiler;f_model;f_dvpp;f_other;") == 0);
    EXPECT_CODE(aclrtGetDeviceCount(&count), ACL_ERROR_UNINITIALIZE);
    /* No callback for an aclFinalize without aclInit. */
    g_log[0] = 0;
    EXPECT_CODE(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
    CHECK(strcmp(g_log, "") == 0);

    /* With a configuration path: ACL_OP_EXECUTOR too, and the file's text. */
    fd = mkstemp(path);
    if (fd < 0) return 1;
    CHECK(write(fd, "{\"dump\":{}}", 11) == 11);
    close(fd);
    g_log[0] = 0;
    REQUIRE_OK(aclInit(path));
    CHECK(strcmp(g_log, "model;executor;dvpp;other1;other2;") == 0);
    CHECK(g_len == 11 && strcmp(g_text, "{\"dump\":{}}") == 0);
    /* A repeated aclInit calls nothing. */
    g_log[0] = 0;
    EXPECT_CODE(aclInit(path), ACL_ERROR_REPEAT_INITIALIZE);
    CHECK(strcmp(g_log, "") == 0);
    /* aclFinalizeReference: the callbacks only with the last reference. */
    EXPECT_OK(aclFinalizeReference(NULL));
    CHECK(strcmp(g_log, "") == 0);
    EXPECT_OK(aclFinalizeReference(NULL));
    CHECK(strcmp(g_log, "f_compiler;f_model;f_dvpp;f_other;") == 0);

    /* A failing init callback fails aclInit with its code; the runtime is not initialised. */
    g_fail_with = 777;
    EXPECT_OK(aclInitCallbackRegister(ACL_REG_TYPE_OTHER, failing_init, NULL));
    g_log[0] = 0;
    EXPECT_CODE(aclInit(NULL), 777);
    CHECK(strcmp(g_log, "model;dvpp;other1;other2;failing_init;") == 0);
    EXPECT_CODE(aclrtGetDeviceCount(&count), ACL_ERROR_UNINITIALIZE);
    EXPECT_CODE(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);

    /* Unregistering: NULL, unknown under the type, a type without registrations. */
    EXPECT_CODE(aclInitCallbackUnRegister(ACL_REG_TYPE_OTHER, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_MODEL, failing_init),
                ACL_ERROR_INTERNAL_ERROR);
    EXPECT_CODE(aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_RETR, model), ACL_ERROR_INTERNAL_ERROR);
    EXPECT_CODE(aclFinalizeCallbackUnRegister(ACL_REG_TYPE_OTHER, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclFinalizeCallbackUnRegister(ACL_REG_TYPE_ACL_MODEL, f_other),
                ACL_ERROR_INTERNAL_ERROR);
    EXPECT_OK(aclInitCallbackUnRegister(ACL_REG_TYPE_OTHER, failing_init));
    EXPECT_CODE(aclInitCallbackUnRegister(ACL_REG_TYPE_OTHER, failing_init),
                ACL_ERROR_INTERNAL_ERROR);
    EXPECT_OK(aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_MODEL, model));
    EXPECT_OK(aclFinalizeCallbackUnRegister(ACL_REG_TYPE_ACL_MODEL, f_model));
    g_log[0] = 0;
    REQUIRE_OK(aclInit(NULL));
    CHECK(strcmp(g_log, "dvpp;other1;other2;") == 0);
    g_log[0] = 0;
    EXPECT_OK(aclFinalize());
    CHECK(strcmp(g_log, "f_compiler;f_dvpp;f_other;") == 0);
    unlink(path);
    return finish("test_init_callbacks");
}
