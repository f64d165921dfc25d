//! The HTML report in a real browser: headless Chromium (Debian package
//! `chromium`, installed by scripts/install-browser.sh) loads the report,
//! the DOM after its script ran must show the tables and drawn charts, and a
//! screenshot, saved as target/report-screenshot.png for a person to look
//! at, must not be blank.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::*;

/// Where cargo puts build output (CARGO_TARGET_DIR aware).
fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).parent().unwrap().to_path_buf()
}

fn chromium() -> PathBuf {
    if let Some(p) = std::env::var_os("RUMBENCH_CHROMIUM") {
        return PathBuf::from(p);
    }
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        if let Ok(out) = Command::new("sh").arg("-c").arg(format!("command -v {name}")).output() {
            let p = String::from_utf8_lossy(&out.stdout).trim().to_string();
            if out.status.success() && !p.is_empty() {
                return PathBuf::from(p);
            }
        }
    }
    panic!(
        "chromium not found: the HTML report test needs headless Chromium. Install it with scripts/install-browser.sh \
(apt-get install chromium), or point RUMBENCH_CHROMIUM at a Chromium binary. scripts/test.sh installs it."
    );
}

/// Run headless Chromium with the flags a root, network-less machine needs; returns stdout.
fn run_chromium(extra: &[String], url: &str) -> String {
    let profile = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(chromium());
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
    ])
    .arg(format!("--user-data-dir={}", profile.path().display()))
    .args(extra)
    .arg(url);
    // Output goes to files: a pipe nobody reads while we wait would fill and stall the browser.
    let out_path = profile.path().join("stdout");
    let err_path = profile.path().join("stderr");
    cmd.stdout(Stdio::from(std::fs::File::create(&out_path).unwrap()))
        .stderr(Stdio::from(std::fs::File::create(&err_path).unwrap()));
    let mut child = cmd.spawn().expect("cannot start chromium");
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > Duration::from_secs(180) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish within 180 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(status.success(), "chromium failed: {}", std::fs::read_to_string(&err_path).unwrap_or_default());
    std::fs::read_to_string(&out_path).unwrap()
}

fn attr(dom: &str, name: &str) -> u64 {
    let body = &dom[dom.find("<body").expect("no <body> in the DOM")..];
    let body = &body[..body.find('>').unwrap()];
    let key = format!("{name}=\"");
    let at =
        body.find(&key).unwrap_or_else(|| panic!("<body> has no {name}: the report's script did not run ({body})"))
            + key.len();
    body[at..].split('"').next().unwrap().parse().unwrap()
}

fn rgb(hex: &str) -> [u8; 3] {
    let v = u32::from_str_radix(hex.trim_start_matches('#'), 16).unwrap();
    [(v >> 16) as u8, (v >> 8) as u8, v as u8]
}

#[test]
fn report_renders_in_headless_chromium() {
    let browser = chromium();
    let work = target_dir().join("report-browser");
    let _ = std::fs::remove_dir_all(&work);
    let (a, b) = (work.join("a"), work.join("b"));
    save(&sample_run("2025-03-01T10:00:00+00:00", 1.0), &a);
    save(&sample_run("2025-03-02T10:00:00+00:00", 0.85), &b);
    let html = work.join("report.html");
    let out =
        cli::rumbench().arg("report").arg(&a).arg(&b).arg("--base").arg(&a).arg("-o").arg(&html).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let url = format!("file://{}", html.canonicalize().unwrap().display());

    // The DOM after load: tables present, every chart laid out with a drawn plot.
    let dom = run_chromium(&["--dump-dom".into()], &url);
    assert_eq!(dom.matches("<table class=\"summary\">").count(), 3, "one summary table per step");
    assert_eq!(dom.matches("<table class=\"relative\">").count(), 3);
    assert_eq!(dom.matches("<table class=\"writer\">").count(), 1);
    let charts = attr(&dom, "data-charts");
    assert!(charts >= 12, "{charts} charts");
    assert_eq!(attr(&dom, "data-charts-rendered"), charts, "some charts have no size or no drawn plot");
    assert!(attr(&dom, "data-polylines") >= charts * 2, "charts without lines");
    assert_eq!(attr(&dom, "data-summary-rows"), 3 * 6, "3 steps x (2 runs x 3 configs)");

    // The screenshot: saved for a person, and not blank.
    let shot = target_dir().join("report-screenshot.png");
    let _ = std::fs::remove_file(&shot);
    run_chromium(&[format!("--screenshot={}", shot.display()), "--window-size=1400,3000".into()], &url);
    let decoder =
        png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&shot).expect("no screenshot written")));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (1400, 3000));
    let channels = info.line_size / info.width as usize;
    assert!(channels >= 3, "{:?}", info.color_type);
    let pixels: Vec<[u8; 3]> = buf[..info.buffer_size()].chunks(channels).map(|p| [p[0], p[1], p[2]]).collect();
    let background = rgb("#fafafa");
    let inked = pixels.iter().filter(|p| **p != background && **p != [255, 255, 255]).count();
    let share = inked as f64 / pixels.len() as f64;
    assert!(share > 0.05, "the screenshot is nearly blank: {:.1}% of pixels drawn", share * 100.0);
    let mut distinct: Vec<[u8; 3]> = pixels.clone();
    distinct.sort();
    distinct.dedup();
    assert!(distinct.len() > 100, "only {} colours: not a rendered report", distinct.len());
    // Chart lines in the series colours, and the rank colours of the tables.
    for (what, hex, min) in [
        ("first series line", "#1f77b4", 200),
        ("second series line", "#d62728", 200),
        ("top-quarter cell", "#b7e4c0", 500),
        ("bottom-quarter cell", "#f7b9b9", 500),
        ("below-0.95 ratio cell", "#fbd38d", 500),
    ] {
        let c = rgb(hex);
        let n = pixels.iter().filter(|p| **p == c).count();
        assert!(n >= min, "{what} ({hex}): {n} pixels in the screenshot");
    }
    eprintln!("screenshot: {} ({} charts; browser {})", shot.display(), charts, browser.display());
}
