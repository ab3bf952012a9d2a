/* The C part of aclAppLog, which src/base.rs's aclAppLog jumps to, since a C variadic
 * function cannot be defined in stable Rust. It only formats the caller's message with vsnprintf into the vendor's 1024-byte
 * buffer; everything else (the text `tid func:file:line: "message"`, the cut and its mark, the
 * level, the line on standard error) is the Rust side's (`ascendcl_app_log_formatted`, in
 * src/base.rs). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The vendor's log buffer, NUL included (aclrt::base::MAX_LOG_STRING). */
#define ACLRT_MAX_LOG_STRING 1024

void ascendcl_app_log_formatted(uint32_t logLevel, const char *func, const char *file,
                                uint32_t line, const char *message, size_t messageLen,
                                int formatOk);

__attribute__((visibility("hidden"))) void aclrt_app_log_va(uint32_t logLevel, const char *func,
                                                            const char *file, uint32_t line,
                                                            const char *fmt, ...)
{
    char message[ACLRT_MAX_LOG_STRING];
    va_list args;
    int n;

    if (fmt == NULL || func == NULL || file == NULL) {
        return;
    }
    va_start(args, fmt);
    n = vsnprintf(message, sizeof message, fmt, args);
    va_end(args);
    if (n < 0) {
        ascendcl_app_log_formatted(logLevel, func, file, line, "", 0, 0);
        return;
    }
    ascendcl_app_log_formatted(logLevel, func, file, line, message, (size_t)n, 1);
}
