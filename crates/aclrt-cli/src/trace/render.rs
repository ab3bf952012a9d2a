//! `aclrt trace render`: a self-contained SVG timeline.
//!
//! One row per stream (tasks as boxes coloured by kind), then one row per host thread that
//! ran callbacks, blocked in synchronise calls or took part in a checker finding; arrows join
//! each event record to the wait it released and each callback task to the thread that ran
//! it; findings are framed and flagged in their own colour; a time axis in milliseconds runs
//! along the top.

use std::fmt::Write;

use super::model::{Model, Track};

/// Layout choices.
#[derive(Debug, Clone)]
pub struct Options {
    /// Picture width in pixels.
    pub width: f64,
    /// Heading.
    pub title: String,
}

/// Least room for the row labels.
const MIN_LEFT: f64 = 180.0;
const RIGHT: f64 = 24.0;
const TOP: f64 = 64.0;
const ROW: f64 = 34.0;
const BOX: f64 = 22.0;
const FONT: f64 = 11.0;
/// Average glyph advance of the label font, for deciding whether a label fits its box.
const GLYPH: f64 = 6.4;
/// Narrowest box drawn for a callback, so every callback shows however short it was.
const MIN_CALLBACK: f64 = 6.0;
/// Narrowest box drawn for any other task or host slice.
const MIN_BOX: f64 = 2.5;

/// The narrowest a box of this kind is drawn.
fn min_width(kind: &str) -> f64 {
    match kind {
        "callback" => MIN_CALLBACK,
        "wait" | "stream_wait" => 1.0,
        _ => MIN_BOX,
    }
}

/// The colour that marks the checker's findings (no task kind uses it).
const FINDING: &str = "#e6007e";

/// Fill colour per task kind (and host slice category).
pub fn colour(kind: &str) -> &'static str {
    match kind {
        "kernel" => "#4e79a7",
        "memcpy" => "#f28e2b",
        "memset" => "#edc948",
        "record" => "#59a14f",
        "wait" | "stream_wait" => "#d9d9d9",
        "reset" => "#9c755f",
        "callback" => "#b07aa1",
        "host_func" => "#76b7b2",
        "sync" => "#bab0ac",
        _ => "#8c8c8c",
    }
}

fn xml(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A tick step of 1, 2 or 5 times a power of ten giving about `target` ticks.
fn tick_step(span_ms: f64, target: f64) -> f64 {
    if span_ms <= 0.0 {
        return 1.0;
    }
    let raw = span_ms / target;
    let pow = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * pow)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * pow)
}

/// A label cut to fit `width` pixels, or `None` if not even a few letters fit.
fn fit(label: &str, width: f64) -> Option<String> {
    let room = ((width - 6.0) / GLYPH).floor() as usize;
    let n = label.chars().count();
    if n <= room {
        Some(label.to_owned())
    } else if room >= 4 {
        Some(label.chars().take(room - 1).chain(['…']).collect())
    } else {
        None
    }
}

/// One entry of the legend.
enum Mark {
    /// A filled box: fill, stroke, label.
    Swatch(String, &'static str, String),
    /// A line: stroke, dashed, arrow marker, label.
    Line(&'static str, bool, &'static str, &'static str),
}

impl Mark {
    fn label(&self) -> &str {
        match self {
            Mark::Swatch(_, _, l) => l,
            Mark::Line(_, _, _, l) => l,
        }
    }

    /// Width of the entry: its sample, a gap, its label, and room before the next entry.
    fn width(&self) -> f64 {
        let sample = match self {
            Mark::Swatch(..) => 14.0,
            Mark::Line(..) => 26.0,
        };
        sample + 6.0 + self.label().chars().count() as f64 * GLYPH + 16.0
    }
}

/// The legend: one entry per kind of mark the picture holds, nothing for marks it lacks.
fn legend(
    model: &Model,
    host_rows: &[usize],
    callback_edges: usize,
    dep_edges: usize,
) -> Vec<Mark> {
    let mut kinds: Vec<&str> = Vec::new();
    for k in model.tasks.iter().map(|t| t.kind.as_str()).chain(
        model
            .host
            .iter()
            .filter(|h| host_rows.contains(&h.row))
            .filter_map(|h| match h.cat.as_str() {
                "sync" => Some("sync"),
                "callback" => Some("callback"),
                _ => None,
            }),
    ) {
        if !kinds.contains(&k) {
            kinds.push(k);
        }
    }
    let mut marks: Vec<Mark> = kinds
        .into_iter()
        .map(|k| {
            let fill = if matches!(k, "wait" | "stream_wait") {
                "url(#hatch)".to_owned()
            } else {
                colour(k).to_owned()
            };
            let name = match k {
                "sync" => "host sync call".to_owned(),
                "wait" | "stream_wait" => format!("{k} (blocked)"),
                _ => k.to_owned(),
            };
            Mark::Swatch(fill, "#999", name)
        })
        .collect();
    if model.tasks.iter().any(|t| t.error.is_some()) {
        marks.push(Mark::Swatch(
            "#ffffff".to_owned(),
            "#d62728",
            "failed task".to_owned(),
        ));
    }
    if dep_edges > 0 {
        marks.push(Mark::Line(
            "#333",
            false,
            "arrow",
            "record → the wait it released",
        ));
    }
    if callback_edges > 0 {
        marks.push(Mark::Line(
            "#7b4f73",
            true,
            "arrow-cb",
            "callback → the host thread that ran it",
        ));
    }
    let mut kinds: Vec<&str> = Vec::new();
    for f in &model.findings {
        if !kinds.contains(&f.kind.as_str()) {
            kinds.push(&f.kind);
        }
    }
    if !kinds.is_empty() {
        marks.push(Mark::Swatch(
            "#ffffff".to_owned(),
            FINDING,
            format!("checker finding ({})", kinds.join(", ")),
        ));
    }
    marks
}

/// Lays legend entries out in lines that fit `width`; returns each entry's line and x.
fn legend_layout(marks: &[Mark], width: f64) -> Vec<(usize, f64)> {
    let mut placed = Vec::with_capacity(marks.len());
    let (mut line, mut lx) = (0, 12.0);
    for m in marks {
        if lx > 12.0 && lx + m.width() > width - RIGHT {
            line += 1;
            lx = 12.0;
        }
        placed.push((line, lx));
        lx += m.width();
    }
    placed
}

/// Renders the model as an SVG document.
pub fn render(model: &Model, opts: &Options) -> String {
    let (mut lo, mut hi) = model.task_span();
    // A finding on a host thread may come before the first task or after the last.
    for f in &model.findings {
        lo = lo.min(f.start);
        hi = hi.max(f.end);
    }
    let pad = ((hi - lo) * 0.01).max(1.0);
    let (t0, mut t1) = (lo - pad, hi + pad);
    if t1 <= t0 {
        t1 = t0 + 1.0;
    }
    let visible = |s: f64, e: f64| e >= t0 && s <= t1;

    // Host threads worth a row: those that ran callbacks, blocked, or that a finding involves.
    let host_rows: Vec<usize> = (0..model.threads.len())
        .filter(|&r| {
            model
                .host
                .iter()
                .any(|h| h.row == r && h.cat != "launch" && visible(h.start, h.end))
                || model.findings.iter().any(|f| f.track == Track::Host(r))
        })
        .collect();
    let stream_labels: Vec<String> = (0..model.streams.len())
        .map(|r| model.stream_label(r))
        .collect();
    let host_labels: Vec<String> = host_rows
        .iter()
        .map(|&r| format!("host {}", model.threads[r].name))
        .collect();
    let longest = stream_labels
        .iter()
        .chain(&host_labels)
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0);
    let left = (24.0 + longest as f64 * GLYPH).max(MIN_LEFT);
    let plot = (opts.width - left - RIGHT).max(100.0);
    let x = |t: f64| left + (t - t0) / (t1 - t0) * plot;

    let by_uid = model.by_uid();
    // Arrows: record → the wait it released; callback task → the host thread that ran it.
    let deps: Vec<(usize, usize)> = model
        .tasks
        .iter()
        .enumerate()
        .filter_map(|(i, w)| Some((*w.released_by.and_then(|u| by_uid.get(&u))?, i)))
        .collect();
    let callback_edges: Vec<(usize, usize)> = model
        .host
        .iter()
        .enumerate()
        .filter(|(_, h)| h.cat == "callback" && host_rows.contains(&h.row))
        .filter_map(|(i, h)| Some((*h.uid.and_then(|u| by_uid.get(&u))?, i)))
        .collect();

    let stream_y = |row: usize| TOP + row as f64 * ROW;
    let host_top =
        TOP + model.streams.len() as f64 * ROW + if host_rows.is_empty() { 0.0 } else { 14.0 };
    let host_y = |row: usize| {
        let i = host_rows.iter().position(|&r| r == row).unwrap_or(0);
        host_top + i as f64 * ROW
    };
    let marks = legend(model, &host_rows, callback_edges.len(), deps.len());
    let placed = legend_layout(&marks, opts.width);
    let legend_lines = placed.last().map_or(0, |(line, _)| line + 1);
    let legend_y = host_top + host_rows.len() as f64 * ROW + 18.0;
    let height = legend_y + 20.0 * legend_lines.max(1) as f64 + 10.0;

    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0}" height="{height:.0}" viewBox="0 0 {w:.0} {height:.0}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="{FONT}">"#,
        w = opts.width
    );
    let _ = writeln!(
        s,
        r##"<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#333"/></marker><marker id="arrow-cb" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#7b4f73"/></marker><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#ececec"/><line x1="0" y1="0" x2="0" y2="6" stroke="#c4c4c4" stroke-width="3"/></pattern></defs>"##
    );
    let _ = writeln!(
        s,
        r##"<rect width="100%" height="100%" fill="#ffffff"/><text x="12" y="22" font-size="15" font-weight="bold" fill="#222">{}</text>"##,
        xml(&opts.title)
    );

    // Time axis and grid, on the trace's clock (the file's timestamps, in milliseconds).
    let span_ms = (t1 - t0) / 1000.0;
    let step = tick_step(span_ms, 10.0);
    let grid_bottom = legend_y - 18.0;
    let _ = writeln!(s, r##"<g class="axis" stroke="#e4e4e4" fill="#555">"##);
    let _ = writeln!(
        s,
        r#"<text class="axis-label" x="12" y="{:.1}" stroke="none">trace time</text>"#,
        TOP - 12.0
    );
    let mut tick = (t0 / 1000.0 / step).ceil() * step;
    while tick * 1000.0 <= t1 {
        let tx = x(tick * 1000.0);
        let _ = writeln!(
            s,
            r#"<line x1="{tx:.1}" y1="{:.1}" x2="{tx:.1}" y2="{grid_bottom:.1}"/><text class="tick" x="{tx:.1}" y="{:.1}" text-anchor="middle" stroke="none">{} ms</text>"#,
            TOP - 8.0,
            TOP - 12.0,
            trim(tick)
        );
        tick += step;
    }
    let _ = writeln!(s, "</g>");

    // Stream rows. Boxes narrower than their kind's least width are widened and drawn last, so
    // short tasks (callbacks above all) stay visible next to long ones.
    for (row, stream) in model.streams.iter().enumerate() {
        let y = stream_y(row);
        let _ = writeln!(
            s,
            r#"<g class="stream-row" data-device="{}" data-stream="{}">"#,
            stream.device, stream.stream
        );
        let band = if row % 2 == 0 { "#f7f9fc" } else { "#ffffff" };
        let _ = writeln!(
            s,
            r##"<rect class="band" x="0" y="{y:.1}" width="{:.0}" height="{ROW}" fill="{band}"/><text class="row-label" x="12" y="{:.1}" fill="#222">{}</text>"##,
            opts.width,
            y + ROW / 2.0 + 4.0,
            xml(&stream_labels[row])
        );
        let mut tasks: Vec<(bool, &super::model::Task)> = model
            .tasks
            .iter()
            .filter(|t| t.row == row)
            .map(|t| (x(t.end) - x(t.start) < min_width(&t.kind), t))
            .collect();
        tasks.sort_by_key(|(narrow, _)| *narrow);
        let mut labels = String::new();
        for (_, t) in tasks {
            let bx = x(t.start);
            let bw = (x(t.end) - bx).max(min_width(&t.kind));
            let by = y + (ROW - BOX) / 2.0;
            let fill = if t.is_wait() {
                "url(#hatch)".to_owned()
            } else {
                colour(&t.kind).to_owned()
            };
            let (stroke, sw) = if t.error.is_some() {
                ("#d62728", 2.0)
            } else {
                ("#ffffff", 0.6)
            };
            let _ = writeln!(
                s,
                r#"<rect class="task" data-uid="{}" data-task="{}" data-kind="{}" x="{bx:.2}" y="{by:.1}" width="{bw:.2}" height="{BOX}" rx="2" fill="{fill}" stroke="{stroke}" stroke-width="{sw}"><title>{} · {} · task {} · {:.3} ms{}</title></rect>"#,
                t.uid,
                t.task,
                xml(&t.kind),
                xml(&t.label),
                xml(&t.kind),
                t.task,
                t.duration() / 1000.0,
                t.error
                    .map(|e| format!(" · failed {e}"))
                    .unwrap_or_default()
            );
            if let Some(label) = fit(&t.label, bw) {
                let colour = if t.is_wait() || t.kind == "memset" {
                    "#333"
                } else {
                    "#fff"
                };
                let _ = writeln!(
                    labels,
                    r#"<text x="{:.2}" y="{:.1}" fill="{colour}" pointer-events="none">{}</text>"#,
                    bx + 3.0,
                    by + BOX / 2.0 + 4.0,
                    xml(&label)
                );
            }
        }
        // Labels over every box, narrow ones included.
        s.push_str(&labels);
        let _ = writeln!(s, "</g>");
    }

    // Host rows.
    if !host_rows.is_empty() {
        let _ = writeln!(
            s,
            r##"<line x1="0" y1="{:.1}" x2="{:.0}" y2="{:.1}" stroke="#999" stroke-dasharray="4 3"/>"##,
            host_top - 7.0,
            opts.width,
            host_top - 7.0
        );
    }
    for (&row, label) in host_rows.iter().zip(&host_labels) {
        let y = host_y(row);
        let _ = writeln!(
            s,
            r#"<g class="host-row" data-tid="{}">"#,
            model.threads[row].tid
        );
        let _ = writeln!(
            s,
            r##"<rect class="band" x="0" y="{y:.1}" width="{:.0}" height="{ROW}" fill="#fbf8f3"/><text class="row-label" x="12" y="{:.1}" fill="#222">{}</text>"##,
            opts.width,
            y + ROW / 2.0 + 4.0,
            xml(label)
        );
        for h in model
            .host
            .iter()
            .filter(|h| h.row == row && h.cat != "launch" && visible(h.start, h.end))
        {
            let bx = x(h.start.max(t0));
            let bw = (x(h.end.min(t1)) - bx).max(min_width(&h.cat));
            // Callbacks nest inside the report call that ran them: draw them narrower on top.
            let inset = if h.cat == "callback" { 4.0 } else { 0.0 };
            let by = y + (ROW - BOX) / 2.0 + inset;
            let _ = writeln!(
                s,
                r##"<rect class="host-slice" data-cat="{}" x="{bx:.2}" y="{by:.1}" width="{bw:.2}" height="{:.1}" rx="2" fill="{}" stroke="#fff" stroke-width="0.6"><title>{} · {:.3} ms</title></rect>"##,
                xml(&h.cat),
                BOX - 2.0 * inset,
                colour(&h.cat),
                xml(&h.name),
                (h.end - h.start) / 1000.0
            );
            if let Some(label) = fit(&h.name, bw) {
                let _ = writeln!(
                    s,
                    r##"<text x="{:.2}" y="{:.1}" fill="#fff" pointer-events="none">{}</text>"##,
                    bx + 3.0,
                    y + ROW / 2.0 + 4.0,
                    xml(&label)
                );
            }
        }
        let _ = writeln!(s, "</g>");
    }

    // Dependencies: record -> the wait it released, at the moment of release.
    let _ = writeln!(
        s,
        r##"<g class="dependencies" fill="none" stroke="#333" stroke-width="1.1" stroke-opacity="0.75">"##
    );
    for &(r, w) in &deps {
        let (r, w) = (&model.tasks[r], &model.tasks[w]);
        let (x1, y1) = (x(r.end), stream_y(r.row) + ROW / 2.0);
        let release = w.released_at.unwrap_or(w.end).clamp(w.start, w.end);
        let (x2, y2) = (x(release), stream_y(w.row) + ROW / 2.0);
        let bend = ((y2 - y1).abs() * 0.5).max(12.0);
        let _ = writeln!(
            s,
            r#"<path class="dep" data-from="{}" data-to="{}" d="M{x1:.2},{y1:.1} C{:.2},{y1:.1} {:.2},{y2:.1} {x2:.2},{y2:.1}" marker-end="url(#arrow)"/>"#,
            r.uid,
            w.uid,
            x1 + bend,
            x2 - bend
        );
    }
    let _ = writeln!(s, "</g>");
    let _ = writeln!(
        s,
        r##"<g class="callbacks" fill="none" stroke="#7b4f73" stroke-width="1" stroke-dasharray="3 2">"##
    );
    for &(t, h) in &callback_edges {
        let (t, h) = (&model.tasks[t], &model.host[h]);
        let (x1, y1) = (x(t.start), stream_y(t.row) + (ROW + BOX) / 2.0);
        let (x2, y2) = (x(h.start), host_y(h.row) + (ROW - BOX) / 2.0 + 4.0);
        let _ = writeln!(
            s,
            r#"<path class="callback-edge" data-from="{}" d="M{x1:.2},{y1:.1} L{x2:.2},{y2:.1}" marker-end="url(#arrow-cb)"/>"#,
            t.uid
        );
    }
    let _ = writeln!(s, "</g>");

    // Findings, over everything: a frame around each task involved, a flag on each host
    // thread involved.
    if !model.findings.is_empty() {
        let _ = writeln!(
            s,
            r##"<g class="findings" fill="none" stroke="{FINDING}" stroke-width="2">"##
        );
    }
    for f in &model.findings {
        let mut title = format!("{} #{}: {}", f.kind, f.finding, f.message);
        for site in &f.sites {
            title.push('\n');
            title.push_str(site);
        }
        let (y, inset) = match f.track {
            Track::Stream(row) => (stream_y(row), 2.0),
            Track::Host(row) => (host_y(row), 2.0),
        };
        let bx = x(f.start);
        let top = y + (ROW - BOX) / 2.0 - inset;
        if f.end > f.start {
            let bw = (x(f.end) - bx).max(MIN_BOX);
            let _ = writeln!(
                s,
                r#"<rect class="finding" data-finding="{}" data-kind="{}" data-uid="{}" x="{:.2}" y="{top:.1}" width="{:.2}" height="{:.1}" rx="3"><title>{}</title></rect>"#,
                f.finding,
                xml(&f.kind),
                f.uid.map(|u| u.to_string()).unwrap_or_default(),
                bx - inset,
                bw + 2.0 * inset,
                BOX + 2.0 * inset,
                xml(&title)
            );
        }
        // A flag at the mark's start: a triangle pointing down onto the row.
        let _ = writeln!(
            s,
            r#"<path class="finding-flag" data-finding="{}" data-kind="{}" d="M{:.2},{:.1} h10 l-5,8 z" fill="{FINDING}" stroke="none"><title>{}</title></path>"#,
            f.finding,
            xml(&f.kind),
            bx - 5.0,
            top - 4.0,
            xml(&title)
        );
    }
    if !model.findings.is_empty() {
        let _ = writeln!(s, "</g>");
    }

    // Legend.
    let _ = writeln!(s, r#"<g class="legend">"#);
    for (m, &(line, lx)) in marks.iter().zip(&placed) {
        let ly = legend_y + 20.0 * line as f64;
        let _ = match m {
            Mark::Swatch(fill, stroke, label) => writeln!(
                s,
                r##"<g class="legend-entry" data-label="{label}"><rect x="{lx:.1}" y="{:.1}" width="14" height="12" rx="2" fill="{fill}" stroke="{stroke}" stroke-width="{}"/><text x="{:.1}" y="{ly:.1}" fill="#333">{label}</text></g>"##,
                ly - 10.0,
                if *stroke == "#999" { 0.5 } else { 2.0 },
                lx + 20.0,
                label = xml(label),
            ),
            Mark::Line(stroke, dashed, marker, label) => writeln!(
                s,
                r##"<g class="legend-entry" data-label="{label}"><path d="M{lx:.1},{:.1} h26" stroke="{stroke}" fill="none"{} marker-end="url(#{marker})"/><text x="{:.1}" y="{ly:.1}" fill="#333">{label}</text></g>"##,
                ly - 4.0,
                if *dashed {
                    r#" stroke-dasharray="3 2""#
                } else {
                    ""
                },
                lx + 32.0,
                label = xml(label),
            ),
        };
    }
    let _ = writeln!(s, "</g>\n</svg>");
    s
}

fn trim(v: f64) -> String {
    let text = format!("{v:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_numbers() {
        assert_eq!(tick_step(100.0, 10.0), 10.0);
        assert_eq!(tick_step(160.0, 10.0), 20.0);
        assert_eq!(tick_step(3.0, 10.0), 0.5);
    }

    #[test]
    fn labels_are_cut_to_their_box() {
        assert_eq!(fit("square", 100.0).as_deref(), Some("square"));
        assert_eq!(fit("a_long_kernel_name", 50.0).as_deref(), Some("a_lon…"));
        assert_eq!(fit("square", 10.0), None);
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(xml(r#"<a & "b">"#), "&lt;a &amp; &quot;b&quot;&gt;");
    }
}
