//! Happens-before with vector clocks: one component per stream and per host thread.
//!
//! - A task's clock is its stream's clock (everything earlier tasks of the stream inherited)
//!   joined with the clock its submitting thread had when it submitted, and its own component is
//!   its task id + 1 (stream order).
//! - An edge into a running task (a record releasing a wait, CUDA's legacy stream, a blocking
//!   callback's return) joins into the stream's clock, so every later task of the stream has it.
//! - A host thread's clock joins a task's clock when the thread learns the task completed (a
//!   synchronise returned, a query said complete, a callback of the task began on the thread).
//!   Its own component counts its accesses: each access takes the next value, so a task
//!   submitted after an access knows it and an access after a submit is unknown to the task.
//!
//! - A host thread seen for the first time knows what every thread seen so far knew (it was
//!   started after them); a thread that ends hands what it knew, its own steps included, to
//!   every host thread's next step (whoever joined it comes after it). Thread creation and
//!   joins are the program's own; the runtime sees only first calls and thread exits. Threads
//!   that order each other through locks or condition variables while both live are not seen.
//!
//! Two accesses are ordered when the later one's view knows the earlier one's epoch.
//!
//! Memory: a stream keeps the clocks its tasks had in a bounded list of versions (the clock
//! changes only at joins); a task older than the oldest version kept is looked up as that
//! version, which knows more than the task did (a missed race, never a false one).
//! A stream that is gone gives its component to the next stream seen, which counts on from
//! the gone stream's last value (a race between the two streams' tasks with no edge is missed,
//! never reported falsely). A thread that ended gives its component to the next thread seen,
//! which counts on from the ended thread's last step and starts knowing everything it did.
//! So clocks are as long as the most streams plus host threads alive at once, however many
//! come and go.

use std::collections::VecDeque;

use super::FastMap;
use std::sync::Arc;

/// A vector clock component: one stream or one host thread.
pub(crate) type Comp = u32;

/// One point of one component: `val` counts the component's steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Epoch {
    pub(crate) comp: Comp,
    pub(crate) val: u64,
}

/// A vector clock.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Vc(Vec<u64>);

impl Vc {
    pub(crate) fn get(&self, comp: Comp) -> u64 {
        self.0.get(comp as usize).copied().unwrap_or(0)
    }

    /// Raises one component; whether it changed.
    pub(crate) fn raise(&mut self, e: Epoch) -> bool {
        let i = e.comp as usize;
        if self.0.len() <= i {
            self.0.resize(i + 1, 0);
        }
        if self.0[i] < e.val {
            self.0[i] = e.val;
            true
        } else {
            false
        }
    }

    /// Joins `other` in; whether anything changed.
    pub(crate) fn join(&mut self, other: &Vc) -> bool {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        let mut changed = false;
        for (mine, theirs) in self.0.iter_mut().zip(&other.0) {
            if *theirs > *mine {
                *mine = *theirs;
                changed = true;
            }
        }
        changed
    }

    /// The first component where `other` knows more than this clock.
    fn first_behind(&self, other: &Vc) -> Option<usize> {
        other
            .0
            .iter()
            .enumerate()
            .position(|(i, v)| *v > self.get(i as Comp))
    }

    /// Joins `other` into a shared clock, copying it only when `other` knows more (one walk
    /// when it does not); whether anything changed.
    pub(crate) fn join_shared(this: &mut Arc<Vc>, other: &Vc) -> bool {
        let Some(from) = this.first_behind(other) else {
            return false;
        };
        let mine = Arc::make_mut(this);
        if mine.0.len() < other.0.len() {
            mine.0.resize(other.0.len(), 0);
        }
        for (m, t) in mine.0[from..].iter_mut().zip(&other.0[from..]) {
            *m = (*m).max(*t);
        }
        true
    }
}

/// What one task or host thread knows at one moment: a clock, and its own epoch (which counts
/// over the clock's value of that component).
#[derive(Debug, Clone)]
pub(crate) struct View {
    pub(crate) vc: Arc<Vc>,
    pub(crate) own: Epoch,
}

impl View {
    /// Whether the access at `e` happened before this point.
    pub(crate) fn knows(&self, e: Epoch) -> bool {
        if e.comp == self.own.comp && self.own.val >= e.val {
            return true;
        }
        self.vc.get(e.comp) >= e.val
    }

    #[cfg(test)]
    fn to_vc(&self) -> Vc {
        let mut vc = (*self.vc).clone();
        vc.raise(self.own);
        vc
    }
}

/// How many clock versions a stream keeps.
const VERSIONS_KEPT: usize = 64;

#[derive(Debug)]
struct StreamClock {
    comp: Comp,
    /// Added to task ids: the last value of the stream that had the component before.
    base: u64,
    /// The highest value of the component given to a task so far.
    top: u64,
    /// What the stream's next task inherits beyond stream order.
    clock: Arc<Vc>,
    /// The submit clock joined last: the same clock again adds nothing.
    last_base: Option<Arc<Vc>>,
    /// (first task id, clock of the tasks from there on), oldest first.
    versions: VecDeque<(u64, Arc<Vc>)>,
}

impl StreamClock {
    fn version_changed(&mut self, from_task: u64) {
        if let Some(last) = self.versions.back_mut() {
            if last.0 == from_task {
                last.1 = self.clock.clone();
                return;
            }
        }
        if self.versions.len() == VERSIONS_KEPT {
            self.versions.pop_front();
        }
        self.versions.push_back((from_task, self.clock.clone()));
    }

    fn view_of(&self, task_id: u64) -> View {
        let i = self.versions.partition_point(|(from, _)| *from <= task_id);
        // Before the oldest version kept (only once versions were dropped): the oldest.
        let vc = match i {
            0 => self.versions.front().map(|(_, vc)| vc.clone()),
            i => Some(self.versions[i - 1].1.clone()),
        };
        View {
            vc: vc.unwrap_or_default(),
            own: Epoch {
                comp: self.comp,
                val: self.base + task_id + 1,
            },
        }
    }
}

#[derive(Debug)]
struct ThreadClock {
    comp: Comp,
    clock: Arc<Vc>,
    /// Accesses made so far (the own component's value).
    steps: u64,
    /// How many thread exits `clock` has taken in.
    exits_seen: u64,
}

/// The happens-before state of one run.
#[derive(Debug, Default)]
pub(crate) struct Hb {
    next_comp: Comp,
    streams: FastMap<u64, StreamClock>,
    threads: FastMap<u32, ThreadClock>,
    /// What the threads that ended knew, their own steps included.
    exited: Vc,
    /// Components of threads that ended, with the steps each had counted: a thread seen later
    /// takes one over and counts on from there. Sound because it starts knowing `exited`
    /// (everything of the ended thread), so whoever learns one of its steps learns every
    /// earlier step of the component; the components in use stay bounded by the threads
    /// alive at once.
    free_thread_comps: Vec<(Comp, u64)>,
    /// Components of streams that are gone, with their last values ([`Hb::forget_stream`]).
    free_stream_comps: Vec<(Comp, u64)>,
    /// How many thread exits `exited` holds.
    exits: u64,
}

impl Hb {
    fn stream(&mut self, stream: u64) -> &mut StreamClock {
        let next = &mut self.next_comp;
        let free = &mut self.free_stream_comps;
        self.streams.entry(stream).or_insert_with(|| {
            let (comp, base) = free.pop().unwrap_or_else(|| {
                *next += 1;
                (*next - 1, 0)
            });
            let clock: Arc<Vc> = Arc::default();
            StreamClock {
                comp,
                base,
                top: base,
                versions: VecDeque::from([(0, clock.clone())]),
                clock,
                last_base: None,
            }
        })
    }

    fn thread(&mut self, tid: u32) -> &mut ThreadClock {
        let next = &mut self.next_comp;
        let free = &mut self.free_thread_comps;
        let (exited, exits) = (&self.exited, self.exits);
        let t = self.threads.entry(tid).or_insert_with(|| match free.pop() {
            Some((comp, steps)) => ThreadClock {
                comp,
                clock: Arc::new(exited.clone()),
                steps,
                exits_seen: exits,
            },
            None => {
                let comp = *next;
                *next += 1;
                ThreadClock {
                    comp,
                    clock: Arc::default(),
                    steps: 0,
                    exits_seen: 0,
                }
            }
        });
        if t.exits_seen != exits {
            t.exits_seen = exits;
            Vc::join_shared(&mut t.clock, exited);
        }
        t
    }

    /// Host thread `tid` ended: every host thread's next step comes after what it did.
    pub(crate) fn thread_exited(&mut self, tid: u32) {
        let Some(t) = self.threads.remove(&tid) else {
            return;
        };
        let mut changed = self.exited.join(&t.clock);
        changed |= self.exited.raise(Epoch {
            comp: t.comp,
            val: t.steps,
        });
        if changed {
            self.exits += 1;
        }
        self.free_thread_comps.push((t.comp, t.steps));
    }

    /// Whether host thread `tid` has been seen.
    pub(crate) fn knows_thread(&self, tid: u32) -> bool {
        self.threads.contains_key(&tid)
    }

    /// A host thread seen for the first time: it was started after (and so knows) what the
    /// threads seen so far have done. Thread creation and joins are invisible to the runtime;
    /// this keeps "set up, then start workers" programs quiet.
    pub(crate) fn adopt_thread(&mut self, tid: u32) {
        let mut inherited = Vc::default();
        for t in self.threads.values() {
            inherited.join(&t.clock);
        }
        let t = self.thread(tid);
        Arc::make_mut(&mut t.clock).join(&inherited);
    }

    /// The clock a task submitted now by `tid` starts from.
    pub(crate) fn submit(&mut self, tid: u32) -> Arc<Vc> {
        self.thread(tid).clock.clone()
    }

    /// Task `task_id` of `stream` starts; `base` is what [`Hb::submit`] gave it.
    pub(crate) fn start(&mut self, stream: u64, task_id: u64, base: &Arc<Vc>) -> View {
        let s = self.stream(stream);
        let same = s.last_base.as_ref().is_some_and(|b| Arc::ptr_eq(b, base));
        if !same {
            s.last_base = Some(base.clone());
            if Vc::join_shared(&mut s.clock, base) {
                s.version_changed(task_id);
            }
        }
        let val = s.base + task_id + 1;
        s.top = s.top.max(val);
        View {
            vc: s.clock.clone(),
            own: Epoch { comp: s.comp, val },
        }
    }

    /// What task `task_id` of `stream` knew (it has started).
    pub(crate) fn task_view(&mut self, stream: u64, task_id: u64) -> View {
        self.stream(stream).view_of(task_id)
    }

    /// `before` (a task that finished, or a host thread's view) happens before every task of
    /// `stream` after `after_task`.
    pub(crate) fn join_into_stream(&mut self, view: &View, stream: u64, after_task: u64) {
        let s = self.stream(stream);
        let mut vc = (*s.clock).clone();
        let changed = vc.join(&view.vc) | vc.raise(view.own);
        if changed {
            s.clock = Arc::new(vc);
            s.version_changed(after_task + 1);
        }
    }

    /// Task `before` of `from` happens before the tasks of `stream` after `after_task`.
    pub(crate) fn edge(&mut self, from: u64, before: u64, stream: u64, after_task: u64) {
        let view = self.task_view(from, before);
        self.join_into_stream(&view, stream, after_task);
    }

    /// Host thread `tid` learned that the task completed.
    pub(crate) fn host_sync(&mut self, tid: u32, stream: u64, task_id: u64) {
        let view = self.task_view(stream, task_id);
        let t = self.thread(tid);
        Vc::join_shared(&mut t.clock, &view.vc);
        if t.clock.get(view.own.comp) < view.own.val {
            Arc::make_mut(&mut t.clock).raise(view.own);
        }
    }

    /// A host thread's current view (what it knows, and its latest access).
    pub(crate) fn thread_view(&mut self, tid: u32) -> View {
        let t = self.thread(tid);
        View {
            vc: t.clock.clone(),
            own: Epoch {
                comp: t.comp,
                val: t.steps,
            },
        }
    }

    /// A host thread accesses memory: its next step.
    pub(crate) fn host_step(&mut self, tid: u32) -> View {
        let t = self.thread(tid);
        t.steps += 1;
        let own = Epoch {
            comp: t.comp,
            val: t.steps,
        };
        Arc::make_mut(&mut t.clock).raise(own);
        View {
            vc: t.clock.clone(),
            own,
        }
    }

    /// A blocking callback of `stream` returned on `tid`: the stream's later tasks come after
    /// what the thread did.
    pub(crate) fn callback_returned(&mut self, tid: u32, stream: u64, task_id: u64) {
        let view = self.thread_view(tid);
        self.join_into_stream(&view, stream, task_id);
    }

    /// A stream is gone (destroyed, its work done): its clocks go, and its component goes to
    /// the next stream seen, whose tasks count on from its last value. Accesses recorded may
    /// still name the component: a task of the next stream then counts as after every task of
    /// the gone one (they ran before it was submitted, but without an edge only a race the
    /// program has would be missed, never a false one reported).
    pub(crate) fn forget_stream(&mut self, stream: u64) {
        if let Some(s) = self.streams.remove(&stream) {
            self.free_stream_comps.push((s.comp, s.top));
        }
    }

    /// Full clock of a view (for tests).
    #[cfg(test)]
    pub(crate) fn full(view: &View) -> Vc {
        view.to_vc()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn threads_that_come_and_go_reuse_components() {
        let mut hb = Hb::default();
        hb.host_step(1);
        hb.submit(1);
        let first = hb.thread_view(1).own;
        for tid in 2..1000 {
            hb.adopt_thread(tid);
            let step = hb.host_step(tid);
            // Every later thread knows what the threads before it did.
            assert!(step.knows(first));
            hb.thread_exited(tid);
        }
        // Thread 1 and one component for all the short-lived ones.
        assert_eq!(hb.next_comp, 2);
        assert!(hb.exited.0.len() <= 2);
        // A step of a thread on a reused component is not known by a thread that has not
        // learnt of it.
        let late = hb.host_step(5000);
        assert!(late.own.val > 998);
        assert!(!hb.thread_view(1).knows(late.own));
    }

    #[test]
    fn streams_that_come_and_go_reuse_components() {
        let mut hb = Hb::default();
        let base = hb.submit(1);
        let mut last = None;
        for stream in 0..1000u64 {
            let first = hb.start(stream, 0, &base);
            let second = hb.start(stream, 1, &base);
            // Stream order within a stream, and the component's values only grow.
            assert!(second.knows(first.own));
            if let Some(prev) = last {
                assert!(first.own.val > prev);
            }
            last = Some(second.own.val);
            hb.forget_stream(stream);
        }
        // Thread 1 and one component for all the streams.
        assert_eq!(hb.next_comp, 2);
    }

    /// A program step, applied in an order that could have happened.
    #[derive(Debug, Clone)]
    enum Step {
        /// Host thread `t` submits a task to stream `s`.
        Submit(u8, u8),
        /// The next queued task of stream `s` runs.
        Run(u8),
        /// The latest run task of `from` releases a wait task queued on `to`: modelled as an
        /// edge into `to`'s next task.
        Edge(u8, u8),
        /// Thread `t` learns that the latest run task of `s` completed.
        Sync(u8, u8),
        /// Thread `t` accesses memory.
        Access(u8),
        /// Thread `t` runs a blocking callback of `s`'s latest run task.
        Callback(u8, u8),
        /// Thread `t` ends (and is joined); a later step of `t` is a new thread with its id.
        Exit(u8),
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            3 => (0..3u8, 0..3u8).prop_map(|(t, s)| Step::Submit(t, s)),
            3 => (0..3u8).prop_map(Step::Run),
            1 => (0..3u8, 0..3u8).prop_map(|(a, b)| Step::Edge(a, b)),
            1 => (0..3u8, 0..3u8).prop_map(|(t, s)| Step::Sync(t, s)),
            2 => (0..3u8).prop_map(Step::Access),
            1 => (0..3u8, 0..3u8).prop_map(|(t, s)| Step::Callback(t, s)),
            1 => (0..3u8).prop_map(Step::Exit),
        ]
    }

    /// The reference: an explicit graph of every node and edge, queried by reachability.
    #[derive(Default)]
    struct Graph {
        edges: Vec<Vec<usize>>,
    }

    impl Graph {
        fn node(&mut self) -> usize {
            self.edges.push(Vec::new());
            self.edges.len() - 1
        }
        fn edge(&mut self, a: usize, b: usize) {
            self.edges[a].push(b);
        }
        fn reaches(&self, a: usize, b: usize) -> bool {
            let mut seen = vec![false; self.edges.len()];
            let mut todo = vec![a];
            while let Some(n) = todo.pop() {
                if n == b {
                    return true;
                }
                if !std::mem::replace(&mut seen[n], true) {
                    todo.extend(&self.edges[n]);
                }
            }
            false
        }
    }

    /// One access (or task run) that a later access is compared with.
    struct Point {
        node: usize,
        epoch: Epoch,
        view: View,
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]
        #[test]
        fn vector_clocks_order_exactly_what_the_graph_orders(steps in prop::collection::vec(step(), 1..60)) {
            let mut hb = Hb::default();
            let mut g = Graph::default();
            // Per thread: its latest node (program order).
            let mut thread_last: [Option<usize>; 3] = [None; 3];
            // Per thread: the ends of threads its next step comes after.
            let mut joined: [Vec<usize>; 3] = Default::default();
            // Per stream: queued (task id, submit node, base), the latest run task (id, node),
            // pending edges into its next task.
            let mut queued: [VecDeque<(u64, usize, Arc<Vc>)>; 3] = Default::default();
            let mut next_id = [0u64; 3];
            let mut last_run: [Option<(u64, usize)>; 3] = [None; 3];
            let mut into_next: [Vec<usize>; 3] = Default::default();
            let mut points: Vec<Point> = Vec::new();
            let thread_node = |g: &mut Graph,
                               last: &mut [Option<usize>; 3],
                               joined: &mut [Vec<usize>; 3],
                               t: usize| {
                let n = g.node();
                if let Some(p) = last[t] {
                    g.edge(p, n);
                }
                for x in joined[t].drain(..) {
                    g.edge(x, n);
                }
                last[t] = Some(n);
                n
            };
            for step in steps {
                match step {
                    Step::Submit(t, s) => {
                        let (t, s) = (t as usize, s as usize);
                        let n = thread_node(&mut g, &mut thread_last, &mut joined, t);
                        let base = hb.submit(t as u32);
                        queued[s].push_back((next_id[s], n, base));
                        next_id[s] += 1;
                    }
                    Step::Run(s) => {
                        let s = s as usize;
                        let Some((id, submit, base)) = queued[s].pop_front() else { continue };
                        let n = g.node();
                        g.edge(submit, n);
                        if let Some((_, prev)) = last_run[s] {
                            g.edge(prev, n);
                        }
                        for e in into_next[s].drain(..) {
                            g.edge(e, n);
                        }
                        let view = hb.start(s as u64, id, &base);
                        let epoch = view.own;
                        points.push(Point { node: n, epoch, view });
                        last_run[s] = Some((id, n));
                    }
                    Step::Edge(a, b) => {
                        let (a, b) = (a as usize, b as usize);
                        let (Some((id, n)), Some((after, _))) = (last_run[a], last_run[b]) else { continue };
                        if a == b { continue; }
                        into_next[b].push(n);
                        hb.edge(a as u64, id, b as u64, after);
                    }
                    Step::Sync(t, s) => {
                        let (t, s) = (t as usize, s as usize);
                        let Some((id, n)) = last_run[s] else { continue };
                        let h = thread_node(&mut g, &mut thread_last, &mut joined, t);
                        g.edge(n, h);
                        hb.host_sync(t as u32, s as u64, id);
                    }
                    Step::Access(t) => {
                        let t = t as usize;
                        let n = thread_node(&mut g, &mut thread_last, &mut joined, t);
                        let view = hb.host_step(t as u32);
                        points.push(Point { node: n, epoch: view.own, view });
                    }
                    Step::Callback(t, s) => {
                        let (t, s) = (t as usize, s as usize);
                        let Some((id, n)) = last_run[s] else { continue };
                        // The body: after the task, before the stream's next task.
                        let h = thread_node(&mut g, &mut thread_last, &mut joined, t);
                        g.edge(n, h);
                        hb.host_sync(t as u32, s as u64, id);
                        let view = hb.host_step(t as u32);
                        points.push(Point { node: h, epoch: view.own, view });
                        into_next[s].push(h);
                        hb.callback_returned(t as u32, s as u64, id);
                    }
                    Step::Exit(t) => {
                        let t = t as usize;
                        let Some(end) = thread_last[t].take() else { continue };
                        hb.thread_exited(t as u32);
                        for pending in &mut joined {
                            pending.push(end);
                        }
                    }
                }
            }
            for (j, later) in points.iter().enumerate() {
                for earlier in &points[..j] {
                    let ordered = g.reaches(earlier.node, later.node);
                    prop_assert_eq!(
                        later.view.knows(earlier.epoch),
                        ordered,
                        "{:?} then {:?}: full clock {:?}",
                        earlier.epoch,
                        later.epoch,
                        Hb::full(&later.view)
                    );
                }
            }
        }
    }
}
