//! The frames between the serving process and a worker: a 4-byte big-endian length,
//! then that many bytes of the message in postcard (serde's compact binary format: a
//! string goes as its bytes, so an envelope is copied, never escaped and unescaped). The
//! length prefix is written by hand because it is ten lines on each side and both sides
//! (the worker's blocking `std` pipes, the server's tokio pipes) need it.

use serde::{Deserialize, Serialize};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The largest frame either side accepts: a delivered result is at most `responseBytes`
/// (1 MiB in every shipped profile), a request at most a message.
pub const MAX_FRAME_BYTES: u32 = 64 * 1024 * 1024;

/// One source-tool call: what the server sends a worker (it stops a running one with a
/// signal, `worker::STOP_SIGNAL`).
#[derive(Debug, Serialize, Deserialize)]
pub struct Run {
    /// The job's number (unique per server).
    pub job: u64,
    /// The tool's name.
    pub tool: String,
    /// The program text.
    pub source: String,
    /// The phrasebook Words requested, validated.
    pub words: Vec<String>,
    /// The bytes the revision's frame adds to the result.
    pub frame_bytes: u64,
    /// The stack budget of `ok` results asked for in place of the server's.
    pub value_stack_bytes: Option<u64>,
}

/// What a worker sends the server.
#[derive(Debug, Serialize, Deserialize)]
pub enum FromWorker {
    /// Started and ready for jobs.
    Ready {
        /// The worker's address-space limit, in bytes (0 when none could be set).
        address_space: u64,
    },
    /// A job's answer.
    Done(Done),
}

/// A job's answer: the delivered result and what the server counts.
#[derive(Debug, Serialize, Deserialize)]
pub struct Done {
    /// The job.
    pub job: u64,
    /// The envelope.
    pub envelope: String,
    /// Whether it is a host error.
    pub host_error: bool,
    /// Whether it answered `memoryExhausted`.
    pub memory_exhausted: bool,
    /// Whether the worker's plugin backend is poisoned now.
    pub poisoned: bool,
}

/// Why a frame could not be read.
#[derive(Debug)]
pub enum FrameError {
    /// The pipe closed or failed.
    Io(std::io::Error),
    /// The frame was too long or not the encoding of a message.
    Malformed(String),
}

impl std::fmt::Display for FrameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FrameError::Io(e) => write!(f, "{e}"),
            FrameError::Malformed(why) => f.write_str(why),
        }
    }
}

/// `message` as one frame, its length first.
pub fn encode<T: Serialize>(message: &T) -> std::io::Result<Vec<u8>> {
    // The length's place is reserved and filled in once the body is written.
    let frame = postcard::to_extend(message, vec![0u8; 4]).map_err(std::io::Error::other)?;
    let len = u32::try_from(frame.len() - 4)
        .ok()
        .filter(|n| *n <= MAX_FRAME_BYTES)
        .ok_or_else(|| std::io::Error::other("frame too long"))?;
    let mut frame = frame;
    frame[..4].copy_from_slice(&len.to_be_bytes());
    Ok(frame)
}

fn decode<T: for<'de> Deserialize<'de>>(body: &[u8]) -> Result<T, FrameError> {
    postcard::from_bytes(body).map_err(|e| FrameError::Malformed(format!("bad frame: {e}")))
}

fn checked_len(header: [u8; 4]) -> Result<usize, FrameError> {
    let len = u32::from_be_bytes(header);
    if len > MAX_FRAME_BYTES {
        return Err(FrameError::Malformed(format!("a frame of {len} bytes")));
    }
    Ok(len as usize)
}

/// Write one frame to a blocking pipe and flush it.
pub fn write_sync<T: Serialize>(out: &mut impl std::io::Write, message: &T) -> std::io::Result<()> {
    out.write_all(&encode(message)?)?;
    out.flush()
}

/// Read one frame from a blocking pipe.
pub fn read_sync<T: for<'de> Deserialize<'de>>(
    input: &mut impl std::io::Read,
) -> Result<T, FrameError> {
    let mut header = [0u8; 4];
    input.read_exact(&mut header).map_err(FrameError::Io)?;
    let mut body = vec![0u8; checked_len(header)?];
    input.read_exact(&mut body).map_err(FrameError::Io)?;
    decode(&body)
}

/// Write one encoded frame ([`encode`]) to an async pipe and flush it.
pub async fn write_frame(
    out: &mut (impl tokio::io::AsyncWrite + Unpin),
    frame: &[u8],
) -> std::io::Result<()> {
    out.write_all(frame).await?;
    out.flush().await
}

/// Read one frame from an async pipe.
pub async fn read<T: for<'de> Deserialize<'de>>(
    input: &mut (impl tokio::io::AsyncRead + Unpin),
) -> Result<T, FrameError> {
    let mut header = [0u8; 4];
    input
        .read_exact(&mut header)
        .await
        .map_err(FrameError::Io)?;
    let mut body = vec![0u8; checked_len(header)?];
    input.read_exact(&mut body).await.map_err(FrameError::Io)?;
    decode(&body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip_and_refuse_what_they_cannot_hold() {
        let mut buf = Vec::new();
        let run = Run {
            job: 7,
            tool: "compute".into(),
            source: "1 2 +".into(),
            words: vec!["GCD".into()],
            frame_bytes: 3,
            value_stack_bytes: Some(9),
        };
        write_sync(&mut buf, &run).expect("written");
        let back: Run = read_sync(&mut buf.as_slice()).expect("read");
        assert_eq!(
            (back.job, back.source.as_str(), back.words.len()),
            (7, "1 2 +", 1)
        );
        // An envelope travels as its bytes, whatever JSON would have escaped in it.
        let envelope = "{\"s\":\"a\\\"b\\n\u{1}\u{2028}é\"}".to_string();
        let mut buf = Vec::new();
        let done = FromWorker::Done(Done {
            job: u64::MAX,
            envelope: envelope.clone(),
            host_error: true,
            memory_exhausted: false,
            poisoned: true,
        });
        write_sync(&mut buf, &done).expect("written");
        assert_eq!(
            u32::from_be_bytes(buf[..4].try_into().expect("a length")) as usize,
            buf.len() - 4
        );
        match read_sync::<FromWorker>(&mut buf.as_slice()).expect("read") {
            FromWorker::Done(back) => assert_eq!(
                (back.job, back.envelope, back.host_error, back.poisoned),
                (u64::MAX, envelope, true, true)
            ),
            other => panic!("{other:?}"),
        }
        let mut long = (MAX_FRAME_BYTES + 1).to_be_bytes().to_vec();
        long.extend_from_slice(b"{}");
        assert!(matches!(
            read_sync::<Run>(&mut long.as_slice()),
            Err(FrameError::Malformed(_))
        ));
        let mut cut = buf.clone();
        cut.truncate(buf.len() - 1);
        assert!(matches!(
            read_sync::<Run>(&mut cut.as_slice()),
            Err(FrameError::Io(_))
        ));
        let mut junk = 2u32.to_be_bytes().to_vec();
        junk.extend_from_slice(&[0xff, 0xff]);
        assert!(matches!(
            read_sync::<Run>(&mut junk.as_slice()),
            Err(FrameError::Malformed(_))
        ));
    }
}
