//! `ACLRT_TRACE` writes its file even when the program exits without `aclFinalize`.

mod exclusive;
use exclusive::exclusive;

use std::process::Command;
use std::time::Duration;

use aclrt::api;

const CHILD: &str = "ACLRT_TEST_TRACE_EXIT_CHILD";

#[test]
fn trace_is_written_at_exit_without_finalize() {
    let _serial = exclusive();
    if std::env::var_os(CHILD).is_some() {
        // The child: trace some work, then exit without aclFinalize.
        api::init().unwrap();
        api::set_device(0).unwrap();
        let s = api::create_stream().unwrap();
        api::launch_kernel(
            s,
            "before_exit",
            Default::default(),
            Box::new(|| {
                std::thread::sleep(Duration::from_millis(1));
                Ok(())
            }),
        )
        .unwrap();
        api::synchronize_stream(s).unwrap();
        std::process::exit(0);
    }
    let dir = std::env::temp_dir().join(format!("aclrt-trace-exit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("trace.json");
    let status = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "trace_is_written_at_exit_without_finalize",
            "--nocapture",
        ])
        .env(CHILD, "1")
        .env(aclrt::trace::ENV_TRACE, &path)
        .status()
        .unwrap();
    assert!(status.success());
    let json = std::fs::read_to_string(&path).expect("the trace file was written at exit");
    assert!(json.contains("before_exit"), "the kernel is in the trace");
    std::fs::remove_dir_all(&dir).ok();
}
