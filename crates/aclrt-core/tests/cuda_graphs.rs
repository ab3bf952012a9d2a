//! CUDA graphs built node by node through the core: a node's work is the submission of the
//! call it was made from, checked as that call is; launches follow the dependencies.

mod cuda_common;

use std::sync::{Arc, Mutex};

use aclrt::cuda::codes::*;
use aclrt::cuda::{self, NodeKind, NodeParams};
use aclrt::StreamHandle;
use cuda_common::*;

type Log = Arc<Mutex<String>>;

/// A node whose work is a host function appending `tag` to the log.
fn host(graph: u64, deps: &[u64], log: &Log, tag: char) -> u64 {
    let log = log.clone();
    cuda::graph_add_node(graph, deps, NodeKind::Host, None, "test", move || {
        cuda::launch_host_func(StreamHandle::NULL, move || log.lock().unwrap().push(tag))
    })
    .unwrap()
}

fn run(exec: u64, stream: StreamHandle) {
    cuda::graph_launch(exec, stream).unwrap();
    cuda::stream_synchronize(stream).unwrap();
}

#[test]
fn nodes_run_after_their_dependencies_and_nothing_runs_when_added() {
    let _serial = exclusive();
    setup();
    let s = cuda::stream_create(cuda::CU_STREAM_NON_BLOCKING).unwrap();
    let log: Log = Arc::default();
    let g = cuda::graph_create(0).unwrap();
    let last = host(g, &[], &log, 'c');
    let first = host(g, &[], &log, 'a');
    let middle = host(g, &[first], &log, 'b');
    cuda::graph_edit_dependencies(g, &[middle], &[last], false).unwrap();
    cuda::ctx_synchronize().unwrap();
    assert_eq!(*log.lock().unwrap(), "", "adding a node runs nothing");
    let x = cuda::graph_instantiate(g, 0).unwrap();
    run(x, s);
    run(x, s);
    assert_eq!(*log.lock().unwrap(), "abcabc");
    assert_eq!(
        cuda::graph_edges(g).unwrap(),
        vec![(middle, last), (first, middle)]
    );
    assert_eq!(cuda::graph_root_nodes(g).unwrap(), vec![first]);
    assert_eq!(cuda::graph_node_type(last).unwrap(), NodeKind::Host);
    // A cycle is refused at instantiation, with its CUgraphInstantiateResult.
    cuda::graph_edit_dependencies(g, &[last], &[first], false).unwrap();
    let (e, result) = cuda::graph_instantiate_with_result(g, 0).unwrap_err();
    assert_eq!(
        (e.code(), result),
        (
            CUDA_ERROR_INVALID_VALUE,
            cuda::CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE
        )
    );
    // The executable graph is a copy: editing the graph leaves it as it was.
    cuda::graph_destroy_node(middle).unwrap();
    log.lock().unwrap().clear();
    run(x, s);
    assert_eq!(*log.lock().unwrap(), "abc");
    cuda::graph_exec_destroy(x).unwrap();
    cuda::graph_destroy(g).unwrap();
    cuda::stream_destroy(s).unwrap();
}

#[test]
fn a_failing_call_adds_no_node_and_parameters_stay_with_the_face() {
    let _serial = exclusive();
    setup();
    let g = cuda::graph_create(0).unwrap();
    // The work is checked as the call itself checks it: a set of host memory is refused.
    let host_buffer = [0u8; 16];
    let refused = cuda::graph_add_node(g, &[], NodeKind::Memset, None, "test", || {
        // SAFETY: refused before anything is written: the address is not device memory.
        unsafe {
            cuda::memset(
                host_buffer.as_ptr() as u64,
                cuda::Pattern::U8(1),
                16,
                16,
                1,
                cuda::Mode::Async(StreamHandle::NULL),
                "test",
            )
        }
    });
    assert_eq!(code(refused), CUDA_ERROR_INVALID_VALUE);
    assert!(cuda::graph_nodes(g).unwrap().is_empty());
    // Kept parameters come back as given; a kind mismatch on set is refused.
    let params: NodeParams = Arc::new(42u32);
    let n = cuda::graph_add_node(g, &[], NodeKind::Empty, Some(params), "test", || Ok(())).unwrap();
    let (kind, kept) = cuda::graph_node_params(n).unwrap();
    assert_eq!(kind, NodeKind::Empty);
    assert_eq!(kept.unwrap().downcast_ref::<u32>(), Some(&42));
    assert_eq!(
        code(cuda::graph_node_set_params(
            n,
            NodeKind::Host,
            Arc::new(()),
            "test",
            || Ok(())
        )),
        CUDA_ERROR_INVALID_VALUE
    );
    // Dependencies: live nodes of this graph, once each.
    let other = cuda::graph_create(0).unwrap();
    let foreign =
        cuda::graph_add_node(other, &[], NodeKind::Empty, None, "test", || Ok(())).unwrap();
    for deps in [vec![foreign], vec![n, n], vec![0x1234]] {
        assert_eq!(
            code(cuda::graph_add_node(
                g,
                &deps,
                NodeKind::Empty,
                None,
                "test",
                || Ok(())
            )),
            CUDA_ERROR_INVALID_VALUE
        );
    }
    cuda::graph_destroy(other).unwrap();
    cuda::graph_destroy(g).unwrap();
    assert_eq!(code(cuda::graph_node_type(n)), CUDA_ERROR_INVALID_VALUE);
}
