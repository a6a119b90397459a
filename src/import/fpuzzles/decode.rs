//! One line of an f-puzzles file to its JSON text: a whole `...?load=` link, the same
//! string URL-encoded, an f-puzzles string (base64 of LZ-string-compressed JSON), or a
//! plain JSON object.

/// The JSON text a line holds, or what was wrong with it.
pub fn to_json(line: &str) -> Result<String, String> {
    let line = line.trim();
    if line.starts_with('{') {
        return Ok(line.to_string());
    }
    let payload = match line.find("load=") {
        Some(at) => {
            let rest = &line[at + "load=".len()..];
            rest.split(['&', '#']).next().unwrap_or(rest)
        }
        None => line,
    };
    let payload = percent_decode(payload)?;
    // A link's `+` may have become a blank on its way through a form or a shell.
    let payload: String = payload.chars().filter(|c| !c.is_whitespace()).collect();
    if let Some(bad) = payload
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '=')))
    {
        return Err(format!(
            "`{bad}` is not a base64 character: expected an f-puzzles string (A-Z a-z 0-9 + / =), a `?load=` link or a JSON object"
        ));
    }
    let text = lz_str::decompress_from_base64(&payload)
        .and_then(|wide| String::from_utf16(&wide).ok())
        .filter(|t| !t.is_empty())
        .ok_or_else(|| {
            "the f-puzzles string does not decompress (LZ-string): is it cut short?".to_string()
        })?;
    Ok(text)
}

/// `%2B` to `+` and so on; anything else is kept as it is.
fn percent_decode(text: &str) -> Result<String, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| {
                    format!(
                        "`%` at character {} is not followed by two hex digits: expected a URL-encoded f-puzzles string",
                        i + 1
                    )
                })?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| "the URL-decoded string is not UTF-8".to_string())
}

#[cfg(test)]
mod tests {
    use super::to_json;

    #[test]
    fn a_compressed_string_and_its_link_and_url_encoding_decode_alike() {
        let json = r#"{"size":4,"grid":[]}"#;
        let packed = lz_str::compress_to_base64(json);
        assert_eq!(to_json(&packed).unwrap(), json);
        let link = format!("https://www.f-puzzles.com/?load={packed}");
        assert_eq!(to_json(&link).unwrap(), json);
        let encoded = packed
            .replace('+', "%2B")
            .replace('/', "%2F")
            .replace('=', "%3D");
        assert_eq!(to_json(&encoded).unwrap(), json);
        assert_eq!(to_json(json).unwrap(), json);
    }

    #[test]
    fn bad_lines_say_what_is_wrong() {
        assert!(to_json("not base64!")
            .unwrap_err()
            .contains("not a base64 character"));
        let packed = lz_str::compress_to_base64(r#"{"size":4,"grid":[[{"value":1}]]}"#);
        let cut = &packed[..packed.len() / 2];
        assert!(to_json(cut).is_err());
    }
}
