use aclrt::api::{self, KernelAccess};
use aclrt::check::{self, Options, Parts};
use std::time::Instant;
fn main() {
    api::init().unwrap();
    api::set_device(0).unwrap();
    let on = std::env::var("ON").is_ok();
    let dag = std::env::var("DAG").is_ok();
    let n = 16;
    let streams: Vec<_> = (0..n)
        .map(|_| api::create_stream_with_config(0, 0).unwrap())
        .collect();
    let events: Vec<_> = (0..n).map(|_| api::create_event().unwrap()).collect();
    for round in 0..8 {
        if on {
            check::enable_with(Options::quiet(Parts::DEFAULT));
        }
        let tasks: usize = std::env::var("TASKS")
            .map(|t| t.parse().unwrap())
            .unwrap_or(200_000);
        let start = Instant::now();
        if dag {
            for _ in 0..tasks / n {
                api::launch_kernel(streams[0], "", KernelAccess::default(), Box::new(|| Ok(())))
                    .unwrap();
                api::record_event(events[0], streams[0]).unwrap();
                for i in 1..n {
                    api::stream_wait_event(streams[i], events[0]).unwrap();
                    api::launch_kernel(
                        streams[i],
                        "",
                        KernelAccess::default(),
                        Box::new(|| Ok(())),
                    )
                    .unwrap();
                    api::record_event(events[i], streams[i]).unwrap();
                }
                for e in &events[1..] {
                    api::stream_wait_event(streams[0], *e).unwrap();
                }
            }
        } else {
            for t in 0..tasks {
                api::launch_kernel(
                    streams[t % n],
                    "",
                    KernelAccess::default(),
                    Box::new(|| Ok(())),
                )
                .unwrap();
            }
        }
        for s in &streams {
            api::synchronize_stream(*s).unwrap();
        }
        let r = tasks as f64 / start.elapsed().as_secs_f64();
        if on {
            assert!(check::disable().is_empty());
        }
        eprintln!("round {round}: {:.0} tasks/s", r);
    }
}
