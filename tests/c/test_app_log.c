/* aclAppLog / ACL_APP_LOG: the caller's printf-style message, in the vendor's text
 * (`tid func:file:line: "message"`, cut at 1024 bytes with "...[truncated]"), written as one
 * line on standard error for the levels at or above ASCEND_GLOBAL_LOG_LEVEL (error by
 * default). It needs no aclInit and notes no error. */
#include "check.h"

#include <fcntl.h>

static char g_path[] = "/tmp/aclrt_app_log_XXXXXX";
static int g_saved = -1;

/* Standard error goes to a file from here. */
static void capture(void)
{
    int fd = mkstemp(g_path);
    if (fd < 0) exit(1);
    fflush(stderr);
    g_saved = dup(2);
    dup2(fd, 2);
    close(fd);
}

/* What standard error got since capture (at most 4095 bytes), and back to the real one. */
static void captured(char *out, size_t size)
{
    FILE *f;
    size_t n;
    fflush(stderr);
    dup2(g_saved, 2);
    close(g_saved);
    f = fopen(g_path, "rb");
    n = f ? fread(out, 1, size - 1, f) : 0;
    out[n] = 0;
    if (f) fclose(f);
    unlink(g_path);
    strcpy(g_path, "/tmp/aclrt_app_log_XXXXXX");
}

int main(void)
{
    static char out[4096], expect[256], long_text[2001];
    int line;

    unsetenv("ASCEND_GLOBAL_LOG_LEVEL");
    (void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
    capture();
    line = __LINE__ + 1;
    ACL_APP_LOG(ACL_ERROR, "value %d of %s", 3, "x");
    ACL_APP_LOG(ACL_WARNING, "not written at the default level");
    aclAppLog(ACL_ERROR, NULL, "f.c", 1, "no function");
    aclAppLog(ACL_ERROR, "f", NULL, 1, "no file");
    aclAppLog(ACL_ERROR, "f", "f.c", 1, NULL);
    aclAppLog((aclLogLevel)7, "f", "f.c", 1, "no such level");
    captured(out, sizeof out);
    CHECK(strncmp(out, "[ERROR] APP(", 12) == 0);
    snprintf(expect, sizeof expect, " main:%s:%d: \"value 3 of x\"\n", __FILE__, line);
    CHECK(strstr(out, expect) != NULL);
    CHECK(strchr(out, '\n') == out + strlen(out) - 1);
    CHECK(aclrtGetLastError(ACL_RT_THREAD_LEVEL) == ACL_SUCCESS);

    /* Level 0: everything from debug up. */
    setenv("ASCEND_GLOBAL_LOG_LEVEL", "0", 1);
    capture();
    aclAppLog(ACL_DEBUG, "fn", "file.c", 12, "%s=%u", "n", 5u);
    aclAppLog(ACL_INFO, "fn", "file.c", 13, "%.2f", 1.5);
    captured(out, sizeof out);
    CHECK(strncmp(out, "[DEBUG] APP(", 12) == 0);
    CHECK(strstr(out, " fn:file.c:12: \"n=5\"\n[INFO] APP(") != NULL);
    CHECK(strstr(out, " fn:file.c:13: \"1.50\"\n") != NULL);

    /* Level 4: nothing. */
    setenv("ASCEND_GLOBAL_LOG_LEVEL", "4", 1);
    capture();
    aclAppLog(ACL_ERROR, "fn", "file.c", 1, "quiet");
    captured(out, sizeof out);
    CHECK(out[0] == 0);

    /* A message longer than the vendor's buffer is cut, marked, 1023 bytes of text. */
    setenv("ASCEND_GLOBAL_LOG_LEVEL", "3", 1);
    memset(long_text, 'y', 2000);
    long_text[2000] = 0;
    capture();
    aclAppLog(ACL_ERROR, "fn", "file.c", 1, "%s", long_text);
    captured(out, sizeof out);
    {
        const char *text = strchr(out, ' ');
        const char *end = strchr(out, '\n');
        /* The text starts after the timestamp: "[ERROR] APP(pid,name):time <text>\n". */
        text = text ? strchr(text + 1, ' ') : NULL;
        CHECK(text != NULL && end != NULL);
        if (text != NULL && end != NULL) {
            CHECK(end - (text + 1) == 1023);
            CHECK(strncmp(end - 14, "...[truncated]", 14) == 0);
        }
    }

    REQUIRE_OK(aclInit(NULL));
    capture();
    ACL_APP_LOG(ACL_ERROR, "after init");
    captured(out, sizeof out);
    CHECK(strstr(out, "\"after init\"") != NULL);
    REQUIRE_OK(aclFinalize());
    return finish("test_app_log");
}
