//! Model-based test of the event contract: random sequences of event and stream calls are
//! run against the runtime and against a small reference model; return codes must always
//! match, status queries must match whenever every stream has been synchronised.
//!
//! The model needs no timing because it only compares statuses at quiescent points, and
//! preconditions keep out the sequences whose outcome depends on a race between streams (a
//! legacy reset racing a record on another stream, or a wait on a flag nobody will set).

mod common;

use aclrt::api;
use aclrt::codes::*;
use aclrt::consts::*;
use aclrt::{EventHandle, StreamHandle, MAX_SYNC_EVENTS_PER_DEVICE};
use common::code;
use proptest::prelude::*;
use proptest::test_runner::Config;
use proptest_state_machine::{prop_state_machine, ReferenceStateMachine, StateMachineTest};

const STREAMS: usize = 3;
const SLOTS: usize = 4;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `aclrtCreateEvent`.
    Default,
    /// `aclrtCreateEventWithFlag(SYNC | TIME_LINE)`: a legacy flag.
    FlagSync,
    /// `aclrtCreateEventWithFlag(TIME_LINE)`.
    FlagPlain,
    /// `aclrtCreateEventExWithFlag(SYNC | TIME_LINE)`.
    ExSync,
    /// `aclrtCreateEventExWithFlag(TIME_LINE)`.
    ExPlain,
    /// `aclrtCreateEventWithFlag(DEVICE_USE_ONLY | SYNC)`: refused.
    BadFlag,
    /// `aclrtCreateEventExWithFlag(DEVICE_USE_ONLY)`: refused.
    BadEx,
}

#[derive(Debug, Clone, Default)]
struct EventModel {
    kind: Option<Kind>,
    alive: bool,
    /// Has a latest record (the last record was not undone by a reset).
    recorded: bool,
    /// Legacy flag state.
    flag: bool,
    holds_resource: bool,
    /// Tasks queued since the last device synchronise.
    pending_record: bool,
    pending_wait: bool,
    pending_reset: bool,
}

#[derive(Debug, Clone, Default)]
struct Model {
    events: [EventModel; SLOTS],
    /// Every stream has been synchronised since the last task was queued.
    quiescent: bool,
    /// Expected code and, at quiescent points, expected value of the last transition.
    expect: (i32, Option<u32>),
}

#[derive(Debug, Clone)]
enum Op {
    Create(usize, Kind),
    Record(usize, usize),
    Wait(usize, usize),
    Reset(usize, usize),
    Query(usize),
    QueryStatus(usize),
    QueryWaitStatus(usize),
    SyncEvent(usize),
    SyncStream(usize),
    SyncAll,
    Destroy(usize),
}

impl Model {
    fn resources(&self) -> usize {
        self.events.iter().filter(|e| e.holds_resource).count()
    }
}

struct Reference;

impl ReferenceStateMachine for Reference {
    type State = Model;
    type Transition = Op;

    fn init_state() -> BoxedStrategy<Model> {
        Just(Model {
            quiescent: true,
            ..Model::default()
        })
        .boxed()
    }

    fn transitions(_: &Model) -> BoxedStrategy<Op> {
        let slot = 0..SLOTS;
        let stream = 0..STREAMS;
        let kind = prop_oneof![
            3 => Just(Kind::Default),
            3 => Just(Kind::FlagSync),
            1 => Just(Kind::FlagPlain),
            3 => Just(Kind::ExSync),
            1 => Just(Kind::ExPlain),
            1 => Just(Kind::BadFlag),
            1 => Just(Kind::BadEx),
        ];
        prop_oneof![
            3 => (slot.clone(), kind).prop_map(|(e, k)| Op::Create(e, k)),
            4 => (slot.clone(), stream.clone()).prop_map(|(e, s)| Op::Record(e, s)),
            3 => (slot.clone(), stream.clone()).prop_map(|(e, s)| Op::Wait(e, s)),
            2 => (slot.clone(), stream.clone()).prop_map(|(e, s)| Op::Reset(e, s)),
            2 => slot.clone().prop_map(Op::Query),
            2 => slot.clone().prop_map(Op::QueryStatus),
            1 => slot.clone().prop_map(Op::QueryWaitStatus),
            1 => slot.clone().prop_map(Op::SyncEvent),
            1 => stream.prop_map(Op::SyncStream),
            3 => Just(Op::SyncAll),
            1 => slot.prop_map(Op::Destroy),
        ]
        .boxed()
    }

    fn preconditions(m: &Model, op: &Op) -> bool {
        match *op {
            // A fresh event goes into a free slot (the old handle, if any, is dead).
            Op::Create(e, _) => !m.events[e].alive,
            Op::Record(e, _) => {
                let ev = &m.events[e];
                !(ev.alive && ev.pending_reset)
            }
            Op::Wait(e, _) => {
                let ev = &m.events[e];
                // A legacy wait must find its flag set, and no reset may race it.
                !(ev.alive && ev.kind == Some(Kind::FlagSync) && (!ev.flag || ev.pending_reset))
            }
            Op::Reset(e, _) => {
                let ev = &m.events[e];
                !(ev.alive
                    && ev.kind == Some(Kind::FlagSync)
                    && (ev.pending_wait || ev.pending_record))
            }
            _ => true,
        }
    }

    fn apply(mut m: Model, op: &Op) -> Model {
        let refused = ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
        let quiescent = m.quiescent;
        let dead = |m: &Model, e: usize| !m.events[e].alive;
        m.expect = match *op {
            Op::Create(e, kind) => match kind {
                Kind::BadFlag | Kind::BadEx => (ACL_ERROR_RT_PARAM_INVALID, None),
                _ => {
                    m.events[e] = EventModel {
                        kind: Some(kind),
                        alive: true,
                        holds_resource: kind == Kind::FlagSync,
                        ..EventModel::default()
                    };
                    (0, None)
                }
            },
            _ if matches!(op, Op::SyncStream(_) | Op::SyncAll) => {
                if matches!(op, Op::SyncAll) {
                    m.quiescent = true;
                    for ev in &mut m.events {
                        ev.pending_record = false;
                        ev.pending_wait = false;
                        ev.pending_reset = false;
                    }
                }
                (0, None)
            }
            Op::Record(e, _)
            | Op::Wait(e, _)
            | Op::Reset(e, _)
            | Op::Query(e)
            | Op::QueryStatus(e)
            | Op::QueryWaitStatus(e)
            | Op::SyncEvent(e)
            | Op::Destroy(e)
                if dead(&m, e) =>
            {
                (ACL_ERROR_RT_INVALID_HANDLE, None)
            }
            Op::Record(e, _) => {
                let ev = &mut m.events[e];
                let kind = ev.kind.unwrap();
                ev.recorded = true;
                ev.pending_record = true;
                if kind == Kind::FlagSync {
                    ev.flag = true;
                }
                if matches!(kind, Kind::Default | Kind::ExSync) {
                    ev.holds_resource = true;
                }
                m.quiescent = false;
                (0, None)
            }
            Op::Wait(e, _) => {
                let ev = &mut m.events[e];
                match ev.kind.unwrap() {
                    Kind::FlagPlain | Kind::ExPlain => (refused, None),
                    Kind::Default if !ev.recorded => (ACL_ERROR_RT_PARAM_INVALID, None),
                    // An empty snapshot: nothing is queued.
                    Kind::ExSync if !ev.recorded => (0, None),
                    _ => {
                        ev.pending_wait = true;
                        m.quiescent = false;
                        (0, None)
                    }
                }
            }
            Op::Reset(e, _) => {
                let ev = &mut m.events[e];
                match ev.kind.unwrap() {
                    Kind::Default => {
                        ev.recorded = false;
                        ev.holds_resource = false;
                        ev.pending_reset = true;
                        m.quiescent = false;
                        (0, None)
                    }
                    Kind::FlagSync => {
                        ev.recorded = false;
                        ev.flag = false;
                        ev.pending_reset = true;
                        m.quiescent = false;
                        (0, None)
                    }
                    _ => (refused, None),
                }
            }
            Op::Query(e) => match m.events[e].kind.unwrap() {
                Kind::ExSync | Kind::ExPlain => (refused, None),
                // Never recorded, or the latest record is done.
                _ => (0, quiescent.then_some(ACL_EVENT_STATUS_COMPLETE)),
            },
            Op::QueryStatus(e) => {
                let ev = &m.events[e];
                let ex = matches!(ev.kind.unwrap(), Kind::ExSync | Kind::ExPlain);
                let status = if ev.recorded || ex {
                    ACL_EVENT_RECORDED_STATUS_COMPLETE
                } else {
                    ACL_EVENT_RECORDED_STATUS_NOT_READY
                };
                (0, quiescent.then_some(status))
            }
            Op::QueryWaitStatus(e) => match m.events[e].kind.unwrap() {
                Kind::ExSync | Kind::ExPlain => (refused, None),
                _ => (0, quiescent.then_some(ACL_EVENT_WAIT_STATUS_COMPLETE)),
            },
            Op::SyncEvent(_) => (0, None),
            Op::Destroy(e) => {
                let ev = &mut m.events[e];
                ev.alive = false;
                ev.holds_resource = false;
                (0, None)
            }
            Op::SyncStream(_) | Op::SyncAll => unreachable!(),
        };
        m
    }
}

struct Runtime {
    streams: [StreamHandle; STREAMS],
    events: [Option<EventHandle>; SLOTS],
}

/// Stands in for an event never created in a slot: garbage to the runtime.
const NO_EVENT: EventHandle = EventHandle::from_raw(0x52ab_cdef_0000_0007);

impl Runtime {
    fn event(&self, e: usize) -> EventHandle {
        self.events[e].unwrap_or(NO_EVENT)
    }
}

struct EventContract;

impl StateMachineTest for EventContract {
    type SystemUnderTest = Runtime;
    type Reference = Reference;

    fn init_test(_: &Model) -> Runtime {
        common::setup();
        Runtime {
            streams: std::array::from_fn(|_| api::create_stream().unwrap()),
            events: [None; SLOTS],
        }
    }

    fn apply(mut rt: Runtime, m: &Model, op: Op) -> Runtime {
        let value = |r: aclrt::Result<u32>| (code(r.clone()), r.ok());
        let (got_code, got_value) = match op {
            Op::Create(e, kind) => {
                let r = match kind {
                    Kind::Default => api::create_event(),
                    Kind::FlagSync => {
                        api::create_event_with_flag(ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE)
                    }
                    Kind::FlagPlain => api::create_event_with_flag(ACL_EVENT_TIME_LINE),
                    Kind::ExSync => {
                        api::create_event_ex_with_flag(ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE)
                    }
                    Kind::ExPlain => api::create_event_ex_with_flag(ACL_EVENT_TIME_LINE),
                    Kind::BadFlag => {
                        api::create_event_with_flag(ACL_EVENT_DEVICE_USE_ONLY | ACL_EVENT_SYNC)
                    }
                    Kind::BadEx => api::create_event_ex_with_flag(ACL_EVENT_DEVICE_USE_ONLY),
                };
                if let Ok(h) = r {
                    rt.events[e] = Some(h);
                }
                (code(r), None)
            }
            Op::Record(e, s) => (code(api::record_event(rt.event(e), rt.streams[s])), None),
            Op::Wait(e, s) => (
                code(api::stream_wait_event(rt.streams[s], rt.event(e))),
                None,
            ),
            Op::Reset(e, s) => (code(api::reset_event(rt.event(e), rt.streams[s])), None),
            Op::Query(e) => value(api::query_event(rt.event(e))),
            Op::QueryStatus(e) => value(api::query_event_status(rt.event(e))),
            Op::QueryWaitStatus(e) => value(api::query_event_wait_status(rt.event(e))),
            Op::SyncEvent(e) => (
                code(api::synchronize_event_with_timeout(rt.event(e), 10_000)),
                None,
            ),
            Op::SyncStream(s) => (
                code(api::synchronize_stream_with_timeout(rt.streams[s], 10_000)),
                None,
            ),
            Op::SyncAll => (code(api::synchronize_device_with_timeout(10_000)), None),
            Op::Destroy(e) => (code(api::destroy_event(rt.event(e))), None),
        };
        let (want_code, want_value) = m.expect;
        assert_eq!(got_code, want_code, "code of {op:?}");
        if let Some(want) = want_value {
            assert_eq!(
                got_value,
                Some(want),
                "value of {op:?} at a quiescent point"
            );
        }
        rt
    }

    fn check_invariants(_: &Runtime, m: &Model) {
        assert_eq!(
            api::get_event_avail_num().unwrap() as usize,
            MAX_SYNC_EVENTS_PER_DEVICE - m.resources(),
            "SYNC event resources in use"
        );
    }

    fn teardown(_: Runtime) {
        api::finalize().unwrap();
        assert_eq!(api::live_objects(), api::LiveObjects::default());
    }
}

prop_state_machine! {
    #![proptest_config(Config {
        cases: 256,
        failure_persistence: None,
        .. Config::default()
    })]
    #[test]
    fn events_follow_the_reference_model(sequential 1..64 => EventContract);
}
