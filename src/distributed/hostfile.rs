//! The host file of a distributed run: one `host:port` per line, the i-th for process i;
//! blank lines and lines starting with `#` are skipped.

use crate::diag::{Diagnostic, Source, Span};

/// The addresses of `processes` processes read from `source`: the first `processes`
/// lines that are addresses (later ones are left for other runs). Every line read must
/// be `host:port`; fewer addresses than processes is an error at the end of the file.
pub fn read_hosts(source: &Source, processes: usize) -> Result<Vec<String>, Diagnostic> {
    let mut hosts = Vec::new();
    let mut offset = 0;
    for line in source.text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let text = line.trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        if hosts.len() == processes {
            break;
        }
        let at = start + (line.len() - line.trim_start().len());
        let span = Span::new(at, at + text.len());
        let port = text
            .rsplit_once(':')
            .map(|(host, port)| (host, port.parse::<u16>()));
        match port {
            Some((host, Ok(p))) if !host.is_empty() && p != 0 => hosts.push(text.to_string()),
            _ => {
                return Err(Diagnostic::error(
                    span,
                    format!(
                        "expected an address `host:port` (a port from 1 to 65535), found `{text}`"
                    ),
                ))
            }
        }
    }
    if hosts.len() < processes {
        let end = source.text.len();
        return Err(Diagnostic::error(
            Span::new(end, end),
            format!(
                "expected {processes} addresses (one per process), found {}",
                hosts.len()
            ),
        )
        .with_note("line i (blank lines and # comments aside) is the address of process i"));
    }
    Ok(hosts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_read_in_order_past_comments() {
        let s = Source::new(
            "hosts.txt",
            "# cluster\nnode1:7000\n\n  node2:7000  \n[::1]:7001\nextra:1\n",
        );
        assert_eq!(
            read_hosts(&s, 3).unwrap(),
            vec!["node1:7000", "node2:7000", "[::1]:7001"]
        );
    }

    #[test]
    fn a_bad_line_and_a_short_file_are_located() {
        let s = Source::new("hosts.txt", "node1:7000\nnode2\n");
        let d = read_hosts(&s, 2).unwrap_err();
        assert_eq!(s.line_col(d.span.start), (2, 1));
        assert!(d.message.contains("found `node2`"), "{}", d.message);
        let s = Source::new("hosts.txt", "node1:7000\n");
        let d = read_hosts(&s, 2).unwrap_err();
        assert_eq!(d.message, "expected 2 addresses (one per process), found 1");
    }
}
