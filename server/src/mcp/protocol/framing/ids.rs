//! Request ids: the id as the client wrote it (a string, or an integer of any length,
//! digit for digit) and writing it back into an answer that carries an internal one.

use serde_json::value::RawValue;
use serde_json::Value;

/// The id of a request as the client wrote it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum ClientId {
    /// A JSON string (its decoded text).
    Text(String),
    /// A JSON integer of any length (its digits, with a leading `-` if negative).
    Integer(String),
}

impl ClientId {
    /// The id as JSON text.
    pub(super) fn json(&self) -> String {
        match self {
            ClientId::Text(s) => Value::String(s.clone()).to_string(),
            ClientId::Integer(d) => d.clone(),
        }
    }
}

/// The id of a parsed message: a string, or an integer of any length (read back from the
/// text when serde_json could only hold it as a float).
pub(super) fn client_id(v: &Value, text: &str) -> Option<ClientId> {
    match v {
        Value::String(s) => Some(ClientId::Text(s.clone())),
        Value::Number(n) if n.is_i64() || n.is_u64() => Some(ClientId::Integer(n.to_string())),
        Value::Number(_) => {
            #[derive(serde::Deserialize)]
            struct IdOnly<'a> {
                #[serde(borrow)]
                id: &'a RawValue,
            }
            let raw = serde_json::from_str::<IdOnly<'_>>(text).ok()?.id.get();
            match raw_client_id(raw)? {
                id @ ClientId::Integer(_) => Some(id),
                ClientId::Text(_) => None,
            }
        }
        _ => None,
    }
}

/// The id written as `raw` JSON text, if it is a string or an integer.
pub(super) fn raw_client_id(raw: &str) -> Option<ClientId> {
    if raw.starts_with('"') {
        return serde_json::from_str::<String>(raw).ok().map(ClientId::Text);
    }
    let digits = raw.strip_prefix('-').unwrap_or(raw);
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| ClientId::Integer(raw.to_string()))
}

/// A JSON-RPC answer (`bytes`) with its `id` member replaced by `id_json`, every other
/// member unchanged and in order; `None` if `bytes` is not a JSON object.
pub fn with_id(bytes: &[u8], id_json: &str) -> Option<Vec<u8>> {
    /// The members of an object, in order, their values unparsed.
    struct Members<'a>(Vec<(String, &'a RawValue)>);
    impl<'de> serde::Deserialize<'de> for Members<'de> {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct Visit;
            impl<'de> serde::de::Visitor<'de> for Visit {
                type Value = Members<'de>;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("a JSON object")
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(
                    self,
                    mut map: A,
                ) -> Result<Self::Value, A::Error> {
                    let mut members = Vec::new();
                    while let Some((k, v)) = map.next_entry::<String, &'de RawValue>()? {
                        members.push((k, v));
                    }
                    Ok(Members(members))
                }
            }
            d.deserialize_map(Visit)
        }
    }
    let Members(members) = serde_json::from_slice::<Members<'_>>(bytes).ok()?;
    let mut out = Vec::with_capacity(bytes.len() + id_json.len());
    out.push(b'{');
    for (i, (key, value)) in members.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(Value::String(key.clone()).to_string().as_bytes());
        out.push(b':');
        if key == "id" {
            out.extend_from_slice(id_json.as_bytes());
        } else {
            out.extend_from_slice(value.get().as_bytes());
        }
    }
    out.push(b'}');
    Some(out)
}
