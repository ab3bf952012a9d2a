/* IPC events, IPC notifies and IPC memory through the C ABI, between this process and children
 * it forks before initialising the runtime. Pipes sequence the processes: a producer's stream runs a
 * host kernel held at a gate (a pipe) that writes a file, then records; the consumer's stream
 * waits and then reads the file, which must hold what the producer wrote. A producer killed
 * while the other process waits for its record fails the wait with ACL_ERROR_RT_IPC_ERROR. */
#include "check.h"

#include <signal.h>
#include <sys/wait.h>

static const char PAYLOAD[] = "ordered-by-the-ipc-record";
static char g_path[128];

struct gate {
    int fd; /* read end: one byte opens it */
};

static aclError gated_write(void *args)
{
    struct gate *g = args;
    char byte;
    if (read(g->fd, &byte, 1) != 1) {
        return ACL_ERROR_INVALID_PARAM;
    }
    FILE *f = fopen(g_path, "w");
    if (f == NULL) {
        return ACL_ERROR_INVALID_PARAM;
    }
    fputs(PAYLOAD, f);
    fclose(f);
    return ACL_SUCCESS;
}

static char g_read[64];

static aclError read_file(void *args)
{
    (void)args;
    memset(g_read, 0, sizeof g_read);
    FILE *f = fopen(g_path, "r");
    if (f != NULL) {
        size_t n = fread(g_read, 1, sizeof g_read - 1, f);
        (void)n;
        fclose(f);
    }
    return ACL_SUCCESS;
}

static void put_all(int fd, const void *buf, size_t len)
{
    if (write(fd, buf, len) != (ssize_t)len) {
        perror("write");
        exit(2);
    }
}

static void get_all(int fd, void *buf, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(fd, (char *)buf + got, len - got);
        if (n <= 0) {
            perror("read");
            exit(2);
        }
        got += (size_t)n;
    }
}

static void truncate_payload(void)
{
    FILE *f = fopen(g_path, "w");
    if (f != NULL) {
        fclose(f);
    }
}

/* The child: opens the parent's IPC event, waits on it, reads the file, reports. */
static int event_consumer(int from_parent, int to_parent)
{
    aclrtIpcEventHandle handle;
    aclrtEvent ev = NULL;
    aclrtStream s = NULL;
    get_all(from_parent, &handle, sizeof handle);
    REQUIRE_OK(aclInit(NULL));
    REQUIRE_OK(aclrtSetDevice(0));
    REQUIRE_OK(aclrtCreateStream(&s));
    REQUIRE_OK(aclrtIpcOpenEventHandle(handle, &ev));
    EXPECT_CODE(aclrtResetEvent(ev, s), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    REQUIRE_OK(aclrtStreamWaitEvent(s, ev));
    REQUIRE_OK(aclxLaunchHostKernel(s, read_file, NULL, "read"));
    aclrtEventRecordedStatus status = ACL_EVENT_RECORDED_STATUS_COMPLETE;
    EXPECT_OK(aclrtQueryEventStatus(ev, &status));
    CHECK(status == ACL_EVENT_RECORDED_STATUS_NOT_READY);
    char queued = 'q';
    put_all(to_parent, &queued, 1);
    EXPECT_OK(aclrtSynchronizeStream(s));
    char ok = strcmp(g_read, PAYLOAD) == 0 ? 'y' : 'n';
    EXPECT_OK(aclrtDestroyEvent(ev));
    EXPECT_OK(aclrtDestroyStream(s));
    put_all(to_parent, &ok, 1);
    return g_failures == 0 ? 0 : 1;
}

/* The child: creates an IPC event, sends its handle, records behind a gate that never opens,
 * then waits to be killed. */
static int doomed_producer(int from_parent, int to_parent)
{
    aclrtEvent ev = NULL;
    aclrtStream s = NULL;
    aclrtIpcEventHandle handle;
    static struct gate g;
    g.fd = from_parent;
    REQUIRE_OK(aclInit(NULL));
    REQUIRE_OK(aclrtSetDevice(0));
    REQUIRE_OK(aclrtCreateStream(&s));
    REQUIRE_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_IPC));
    REQUIRE_OK(aclxLaunchHostKernel(s, gated_write, &g, "never"));
    REQUIRE_OK(aclrtRecordEvent(ev, s));
    REQUIRE_OK(aclrtIpcGetEventHandle(ev, &handle));
    put_all(to_parent, &handle, sizeof handle);
    for (;;) {
        pause();
    }
}

/* The child: imports the parent's notify by key, writes the file, records the notify. */
static int notify_producer(int from_parent, int to_parent)
{
    char key[128];
    aclrtNotify n = NULL;
    aclrtStream s = NULL;
    get_all(from_parent, key, sizeof key);
    REQUIRE_OK(aclInit(NULL));
    REQUIRE_OK(aclrtSetDevice(0));
    REQUIRE_OK(aclrtCreateStream(&s));
    EXPECT_CODE(aclrtNotifyImportByKey(NULL, key, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtNotifyImportByKey(&n, NULL, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtNotifyImportByKey(&n, "not-a-key", 0), ACL_ERROR_RT_PARAM_INVALID);
    REQUIRE_OK(aclrtNotifyImportByKey(&n, key, ACL_RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS));
    FILE *f = fopen(g_path, "w");
    if (f != NULL) {
        fputs(PAYLOAD, f);
        fclose(f);
    }
    REQUIRE_OK(aclrtRecordNotify(n, s));
    EXPECT_OK(aclrtSynchronizeStream(s));
    EXPECT_OK(aclrtDestroyNotify(n));
    char done = g_failures == 0 ? 'y' : 'n';
    put_all(to_parent, &done, 1);
    return g_failures == 0 ? 0 : 1;
}

/* IPC memory ordered by an IPC event, both ways: a host kernel (held at a gate, a pipe)
 * writes a pattern into the shared memory and the event is recorded; the other process's
 * stream waits on the event and a host kernel copies the memory out; compared byte by byte. */
#define MEM_SIZE (3 * 4096 + 123)

static unsigned char pattern_byte(size_t i, unsigned seed)
{
    return (unsigned char)(((unsigned)i * 31u + seed) ^ (unsigned)(i >> 8));
}

static int matches_pattern(const unsigned char *bytes, unsigned seed)
{
    for (size_t i = 0; i < MEM_SIZE; i++) {
        if (bytes[i] != pattern_byte(i, seed)) {
            return 0;
        }
    }
    return 1;
}

struct mem_job {
    int gate_fd; /* -1: no gate */
    unsigned char *dev;
    unsigned seed;
    unsigned char out[MEM_SIZE];
};

static aclError gated_fill(void *args)
{
    struct mem_job *j = args;
    char byte;
    if (j->gate_fd >= 0 && read(j->gate_fd, &byte, 1) != 1) {
        return ACL_ERROR_INVALID_PARAM;
    }
    for (size_t i = 0; i < MEM_SIZE; i++) {
        j->dev[i] = pattern_byte(i, j->seed);
    }
    return ACL_SUCCESS;
}

static aclError copy_out(void *args)
{
    struct mem_job *j = args;
    memcpy(j->out, j->dev, MEM_SIZE);
    return ACL_SUCCESS;
}

/* The child: imports the parent's memory and opens its event; consumes round 1, produces
 * round 2. */
static int mem_partner(int from_parent, int to_parent)
{
    char key[65];
    aclrtIpcEventHandle handle;
    void *dev = NULL;
    aclrtEvent ev = NULL;
    aclrtStream s = NULL;
    static struct mem_job read_job, write_job;
    get_all(from_parent, key, sizeof key);
    get_all(from_parent, &handle, sizeof handle);
    REQUIRE_OK(aclInit(NULL));
    REQUIRE_OK(aclrtSetDevice(0));
    REQUIRE_OK(aclrtCreateStream(&s));
    REQUIRE_OK(aclrtIpcMemImportByKey(&dev, key, 0));
    REQUIRE_OK(aclrtIpcOpenEventHandle(handle, &ev));
    /* Round 1: wait on the parent's record, then copy the memory out. */
    char byte = 0;
    get_all(from_parent, &byte, 1);
    read_job.dev = dev;
    REQUIRE_OK(aclrtStreamWaitEvent(s, ev));
    REQUIRE_OK(aclxLaunchHostKernel(s, copy_out, &read_job, "copy out"));
    aclrtEventRecordedStatus status = ACL_EVENT_RECORDED_STATUS_COMPLETE;
    EXPECT_OK(aclrtQueryEventStatus(ev, &status));
    CHECK(status == ACL_EVENT_RECORDED_STATUS_NOT_READY);
    put_all(to_parent, "q", 1);
    EXPECT_OK(aclrtSynchronizeStream(s));
    byte = matches_pattern(read_job.out, 5) ? 'y' : 'n';
    put_all(to_parent, &byte, 1);
    /* Round 2: write behind a gate the parent opens, then record. */
    write_job.gate_fd = from_parent;
    write_job.dev = dev;
    write_job.seed = 9;
    REQUIRE_OK(aclxLaunchHostKernel(s, gated_fill, &write_job, "fill"));
    REQUIRE_OK(aclrtRecordEvent(ev, s));
    put_all(to_parent, "r", 1);
    EXPECT_OK(aclrtSynchronizeStream(s));
    EXPECT_OK(aclrtIpcMemClose(key));
    EXPECT_OK(aclrtDestroyEvent(ev));
    EXPECT_OK(aclrtDestroyStream(s));
    EXPECT_OK(aclFinalize());
    byte = g_failures == 0 ? 'y' : 'n';
    put_all(to_parent, &byte, 1);
    return g_failures == 0 ? 0 : 1;
}

typedef int (*role_fn)(int from_parent, int to_parent);

struct child {
    pid_t pid;
    int to;   /* parent → child */
    int from; /* child → parent */
};

static struct child spawn(role_fn role)
{
    int down[2], up[2];
    if (pipe(down) != 0 || pipe(up) != 0) {
        perror("pipe");
        exit(2);
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(down[1]);
        close(up[0]);
        _exit(role(down[0], up[1]));
    }
    close(down[0]);
    close(up[1]);
    struct child c = {pid, down[1], up[0]};
    return c;
}

static int reap(pid_t pid)
{
    int status = 0;
    waitpid(pid, &status, 0);
    return status;
}

int main(void)
{
    snprintf(g_path, sizeof g_path, "/tmp/aclrt-test-ipc-%d", (int)getpid());
    truncate_payload();
    /* Children fork before this process initialises the runtime. */
    struct child consumer = spawn(event_consumer);
    struct child doomed = spawn(doomed_producer);
    struct child importer = spawn(notify_producer);
    struct child partner = spawn(mem_partner);

    aclrtIpcEventHandle handle;
    EXPECT_CODE(aclrtIpcGetEventHandle(NULL, &handle), ACL_ERROR_UNINITIALIZE);
    REQUIRE_OK(aclInit(NULL));
    REQUIRE_OK(aclrtSetDevice(0));
    aclrtStream s = NULL;
    REQUIRE_OK(aclrtCreateStream(&s));

    /* Argument checks and the vendor's restrictions on IPC events. */
    aclrtEvent plain = NULL, ev = NULL;
    REQUIRE_OK(aclrtCreateEvent(&plain));
    EXPECT_CODE(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_IPC | ACL_EVENT_SYNC),
                ACL_ERROR_RT_PARAM_INVALID);
    REQUIRE_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_IPC));
    EXPECT_CODE(aclrtIpcGetEventHandle(ev, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtIpcGetEventHandle(plain, &handle), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtIpcGetEventHandle(NULL, &handle), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtResetEvent(ev, s), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    uint32_t id = 0;
    EXPECT_CODE(aclrtGetEventId(ev, &id), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    float ms = 0;
    EXPECT_CODE(aclrtEventElapsedTime(&ms, ev, ev), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    uint64_t ts = 0;
    EXPECT_CODE(aclrtEventGetTimestamp(ev, &ts), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    aclrtIpcEventHandle zeros;
    memset(&zeros, 0, sizeof zeros);
    aclrtEvent bad = NULL;
    EXPECT_CODE(aclrtIpcOpenEventHandle(zeros, &bad), ACL_ERROR_RT_PARAM_INVALID);
    CHECK(bad == NULL);

    /* 1. This process records (behind a gate), the consumer child waits and then reads. */
    int gate_pipe[2];
    if (pipe(gate_pipe) != 0) {
        return 2;
    }
    static struct gate g;
    g.fd = gate_pipe[0];
    REQUIRE_OK(aclxLaunchHostKernel(s, gated_write, &g, "produce"));
    REQUIRE_OK(aclrtRecordEvent(ev, s));
    REQUIRE_OK(aclrtIpcGetEventHandle(ev, &handle));
    put_all(consumer.to, &handle, sizeof handle);
    char byte = 0;
    get_all(consumer.from, &byte, 1);
    CHECK(byte == 'q');
    put_all(gate_pipe[1], "g", 1); /* open the gate */
    get_all(consumer.from, &byte, 1);
    CHECK(byte == 'y');
    CHECK(reap(consumer.pid) == 0);
    EXPECT_OK(aclrtSynchronizeEvent(ev));
    EXPECT_OK(aclrtDestroyEvent(ev));

    /* 2. A producer killed while this process waits for its record. */
    aclrtEvent opened = NULL;
    get_all(doomed.from, &handle, sizeof handle);
    REQUIRE_OK(aclrtIpcOpenEventHandle(handle, &opened));
    truncate_payload();
    REQUIRE_OK(aclrtStreamWaitEvent(s, opened));
    REQUIRE_OK(aclxLaunchHostKernel(s, read_file, NULL, "read after a dead record"));
    strcpy(g_read, "unread");
    kill(doomed.pid, SIGKILL);
    reap(doomed.pid);
    EXPECT_CODE(aclrtSynchronizeEvent(opened), ACL_ERROR_RT_IPC_ERROR);
    EXPECT_CODE(aclrtSynchronizeStream(s), ACL_ERROR_RT_IPC_ERROR);
    CHECK(strcmp(g_read, PAYLOAD) != 0); /* nothing was produced */
    EXPECT_OK(aclrtDestroyEvent(opened));

    /* 3. A notify shared by key: this process waits, the child records. */
    aclrtNotify n = NULL;
    char key[128];
    memset(key, 0, sizeof key);
    REQUIRE_OK(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT));
    EXPECT_CODE(aclrtNotifyGetExportKey(n, NULL, 65, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtNotifyGetExportKey(n, key, 64, 0), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtNotifyGetExportKey(n, key, 65, 1), ACL_ERROR_RT_PARAM_INVALID);
    int32_t pid = importer.pid;
    EXPECT_CODE(aclrtNotifySetImportPid(n, &pid, 1), ACL_ERROR_RT_PARAM_INVALID);
    REQUIRE_OK(aclrtNotifyGetExportKey(n, key, 65,
                                       ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION));
    CHECK(strlen(key) > 0 && strlen(key) < 65);
    EXPECT_CODE(aclrtNotifySetImportPid(n, NULL, 1), ACL_ERROR_INVALID_PARAM);
    EXPECT_OK(aclrtNotifySetImportPid(n, &pid, 1));
    truncate_payload();
    REQUIRE_OK(aclrtWaitAndResetNotify(n, s, 0));
    REQUIRE_OK(aclxLaunchHostKernel(s, read_file, NULL, "read after the notify"));
    put_all(importer.to, key, sizeof key);
    get_all(importer.from, &byte, 1);
    CHECK(byte == 'y');
    CHECK(reap(importer.pid) == 0);
    EXPECT_OK(aclrtSynchronizeStream(s));
    CHECK(strcmp(g_read, PAYLOAD) == 0);
    EXPECT_OK(aclrtDestroyNotify(n));

    /* 4. IPC memory ordered by an IPC event: this process produces and the child consumes,
     * then the other way round. */
    void *dev = NULL;
    aclrtEvent shared = NULL;
    char mem_key[65];
    memset(mem_key, 0, sizeof mem_key);
    REQUIRE_OK(aclrtMalloc(&dev, MEM_SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
    REQUIRE_OK(aclrtIpcMemGetExportKey(dev, MEM_SIZE, mem_key, sizeof mem_key,
                                       ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION));
    REQUIRE_OK(aclrtCreateEventExWithFlag(&shared, ACL_EVENT_IPC));
    REQUIRE_OK(aclrtIpcGetEventHandle(shared, &handle));
    put_all(partner.to, mem_key, sizeof mem_key);
    put_all(partner.to, &handle, sizeof handle);
    int mem_gate[2];
    if (pipe(mem_gate) != 0) {
        return 2;
    }
    static struct mem_job fill, back;
    fill.gate_fd = mem_gate[0];
    fill.dev = dev;
    fill.seed = 5;
    REQUIRE_OK(aclxLaunchHostKernel(s, gated_fill, &fill, "fill"));
    REQUIRE_OK(aclrtRecordEvent(shared, s));
    put_all(partner.to, "c", 1); /* consume */
    get_all(partner.from, &byte, 1);
    CHECK(byte == 'q');
    put_all(mem_gate[1], "g", 1);
    get_all(partner.from, &byte, 1);
    CHECK(byte == 'y'); /* the child read this process's pattern */
    EXPECT_OK(aclrtSynchronizeStream(s));
    get_all(partner.from, &byte, 1);
    CHECK(byte == 'r'); /* the child recorded behind its gate */
    back.dev = dev;
    REQUIRE_OK(aclrtStreamWaitEvent(s, shared));
    REQUIRE_OK(aclxLaunchHostKernel(s, copy_out, &back, "copy out"));
    put_all(partner.to, "g", 1); /* the child's gate */
    EXPECT_OK(aclrtSynchronizeStream(s));
    CHECK(matches_pattern(back.out, 9));
    get_all(partner.from, &byte, 1);
    CHECK(byte == 'y');
    CHECK(reap(partner.pid) == 0);
    EXPECT_OK(aclrtIpcMemClose(mem_key));
    EXPECT_OK(aclrtDestroyEvent(shared));
    EXPECT_OK(aclrtFree(dev));
    close(mem_gate[0]);
    close(mem_gate[1]);

    EXPECT_OK(aclrtDestroyEvent(plain));
    EXPECT_OK(aclrtDestroyStream(s));
    EXPECT_OK(aclrtResetDevice(0));
    EXPECT_OK(aclFinalize());
    remove(g_path);
    printf("test_ipc: %d checks, %d failures\n", g_checks, g_failures);
    return g_failures == 0 ? 0 : 1;
}
