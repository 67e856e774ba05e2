//! The status page (`/status` on the HTTP front): each configured server's state, tools and
//! calls, and its tokens before and after conversion as a bar chart, from the
//! [`metrics`](super::metrics) board. One self-contained HTML document: inline CSS and SVG,
//! no script, no external asset; every name and reason escaped (server names and the reasons
//! a server is unavailable come from the configuration and from servers).

use std::fmt::Write;

use super::metrics::{ServerState, ServerSummary, counted};

/// Bar chart geometry, in SVG user units.
const CHART_WIDTH: u32 = 640;
const LABEL_WIDTH: u32 = 160;
const BAR_HEIGHT: u32 = 14;
const ROW_HEIGHT: u32 = 2 * BAR_HEIGHT + 14;

/// A name longer than this is cut (with `…`) in the chart's labels; the table shows it whole.
const LABEL_CHARS: usize = 20;

/// `text` for HTML text and attribute values: `&`, `<`, `>`, `"` and `'` as references.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The saving as a signed percentage (`-40.1%`), or `—` when nothing was converted.
fn change(before: u64, after: u64) -> String {
    if before == 0 {
        return "—".to_owned();
    }
    format!("{:+.1}%", (after as f64 / before as f64 - 1.0) * 100.0)
}

/// The whole page for `servers` (in configuration order) and the sessions open.
#[must_use]
pub fn render(servers: &[ServerSummary], sessions: usize) -> String {
    let (before, after) = servers.iter().fold((0, 0), |(b, a), s| {
        (b + s.tokens_before, a + s.tokens_after)
    });
    let calls: u64 = servers.iter().map(|s| s.calls).sum();
    let errors: u64 = servers.iter().map(|s| s.errors).sum();
    let mut page = String::from(HEAD);
    let _ = write!(
        page,
        "<h1>toon MCP gateway</h1>\n<p class=\"totals\">{}, {}, \
         {} ({errors} failed), tokens {before} → {after} ({})</p>\n",
        counted(servers.len() as u64, "server"),
        counted(sessions as u64, "session"),
        counted(calls, "call"),
        change(before, after)
    );
    // The chart first: what the gateway saved, at a glance; then each server's numbers.
    page.push_str("<h2>Tokens before and after conversion</h2>\n");
    page.push_str(&chart(servers));
    page.push_str("<h2>Servers</h2>\n");
    page.push_str(&table(servers));
    page.push_str("</body>\n</html>\n");
    page
}

const HEAD: &str = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
<title>toon MCP gateway: status</title>\n<style>\n\
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}\n\
table{border-collapse:collapse;margin:1em 0}\n\
th,td{padding:.3em .8em;border-bottom:1px solid #ddd;text-align:left}\n\
td.n{text-align:right;font-variant-numeric:tabular-nums}\n\
.up{color:#176f2c}.starting{color:#8a6d00}.unavailable{color:#b3261e}\n\
svg text{font:12px system-ui,sans-serif;fill:#222}\n\
</style>\n</head>\n<body>\n";

/// The servers' table.
fn table(servers: &[ServerSummary]) -> String {
    let mut out = String::from(
        "<table id=\"servers\">\n<tr><th>server</th><th>state</th><th>tools</th><th>calls</th>\
         <th>failed</th><th>tokens before</th><th>tokens after</th><th>change</th></tr>\n",
    );
    for s in servers {
        let state = match &s.state {
            ServerState::Unavailable(why) => format!("unavailable: {}", escape(why)),
            other => other.word().to_owned(),
        };
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td class=\"{}\">{state}</td><td class=\"n\">{}</td>\
             <td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
             <td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            escape(&s.name),
            s.state.word(),
            s.tools,
            s.calls,
            s.errors,
            s.tokens_before,
            s.tokens_after,
            change(s.tokens_before, s.tokens_after),
        );
    }
    out.push_str("</table>\n");
    out
}

/// The bar chart: two bars per server (before, after), scaled to the largest `before`.
fn chart(servers: &[ServerSummary]) -> String {
    let height = ROW_HEIGHT * u32::try_from(servers.len()).unwrap_or(u32::MAX / ROW_HEIGHT) + 30;
    let most = servers
        .iter()
        .map(|s| s.tokens_before)
        .max()
        .unwrap_or(0)
        .max(1);
    let room = f64::from(CHART_WIDTH - LABEL_WIDTH - 70);
    let mut out = format!(
        "<svg id=\"tokens\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{CHART_WIDTH}\" \
         height=\"{height}\" viewBox=\"0 0 {CHART_WIDTH} {height}\" role=\"img\" \
         aria-labelledby=\"tokens-title\">\n<title id=\"tokens-title\">Tokens before and after \
         conversion, per server</title>\n"
    );
    for (i, s) in servers.iter().enumerate() {
        let y = ROW_HEIGHT * u32::try_from(i).unwrap_or(0);
        let mut label: String = s.name.chars().take(LABEL_CHARS).collect();
        if s.name.chars().count() > LABEL_CHARS {
            label.push('…');
        }
        let _ = writeln!(
            out,
            "<text x=\"0\" y=\"{}\">{}</text>",
            y + BAR_HEIGHT + 4,
            escape(&label)
        );
        for (row, (tokens, fill, what)) in [
            (s.tokens_before, "#9aa5b1", "before"),
            (s.tokens_after, "#2f6fde", "after"),
        ]
        .into_iter()
        .enumerate()
        {
            let width = (tokens as f64 / most as f64 * room).round();
            let bar_y = y + u32::try_from(row).unwrap_or(0) * BAR_HEIGHT;
            let _ = writeln!(
                out,
                "<rect class=\"{what}\" x=\"{LABEL_WIDTH}\" y=\"{bar_y}\" width=\"{width}\" \
                 height=\"{}\" fill=\"{fill}\"><title>{} {what}: {tokens} tokens</title></rect>\
                 <text x=\"{}\" y=\"{}\">{tokens}</text>",
                BAR_HEIGHT - 2,
                escape(&s.name),
                f64::from(LABEL_WIDTH) + width + 4.0,
                bar_y + BAR_HEIGHT - 3,
            );
        }
    }
    let legend_y = height - 8;
    let _ = writeln!(
        out,
        "<rect x=\"{LABEL_WIDTH}\" y=\"{}\" width=\"10\" height=\"10\" fill=\"#9aa5b1\"/>\
         <text x=\"{}\" y=\"{legend_y}\">before</text>\
         <rect x=\"{}\" y=\"{}\" width=\"10\" height=\"10\" fill=\"#2f6fde\"/>\
         <text x=\"{}\" y=\"{legend_y}\">after</text>\n</svg>",
        legend_y - 9,
        LABEL_WIDTH + 14,
        LABEL_WIDTH + 70,
        legend_y - 9,
        LABEL_WIDTH + 84,
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(name: &str, state: ServerState, before: u64, after: u64) -> ServerSummary {
        ServerSummary {
            name: name.to_owned(),
            state,
            settled: true,
            tools: 3,
            calls: 5,
            errors: 1,
            tokens_before: before,
            tokens_after: after,
        }
    }

    #[test]
    fn names_and_reasons_are_escaped_and_every_server_has_two_bars() {
        let page = render(
            &[
                server("<script>alert(1)</script>", ServerState::Up, 1000, 600),
                server(
                    "b&\"q'",
                    ServerState::Unavailable("<exited> & gone".into()),
                    0,
                    0,
                ),
            ],
            2,
        );
        assert!(!page.contains("<script"), "{page}");
        assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(page.contains("b&amp;&quot;q&#39;"));
        assert!(page.contains("unavailable: &lt;exited&gt; &amp; gone"));
        assert_eq!(page.matches("<rect class=\"before\"").count(), 2);
        assert_eq!(page.matches("<rect class=\"after\"").count(), 2);
        // The largest `before` spans the room; `after` in proportion.
        assert!(page.contains("class=\"before\" x=\"160\" y=\"0\" width=\"410\""));
        assert!(page.contains("class=\"after\" x=\"160\" y=\"14\" width=\"246\""));
        assert!(
            page.contains("2 servers, 2 sessions, 10 calls (2 failed), tokens 1000 → 600 (-40.0%)")
        );
        for external in ["src=", "href=", "<link", "@import", "url("] {
            assert!(!page.contains(external), "{external}");
        }
    }
}
