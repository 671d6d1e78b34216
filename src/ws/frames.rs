//! Reading frames safely: a guard that refuses an oversized frame as soon as its header
//! arrives, and the close code for each way a client can break the protocol.
//!
//! actix-http's frame parser checks a frame's size against the limit only once the
//! whole frame has arrived (`Parser::parse` returns "not enough data" first), so a
//! header announcing 2^62 bytes followed by nothing kept a socket open until the idle
//! timeout. [`FrameGuard`] reads each header as it passes (with tungstenite's parser)
//! and ends the stream at once.

use std::io::Cursor;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use actix_web::error::PayloadError;
use actix_web::web::Bytes;
use actix_ws::{CloseCode, ProtocolError};
use futures_util::Stream;
use tungstenite::protocol::frame::FrameHeader;

/// The longest frame header: 2 bytes, an 8-byte length and a 4-byte mask.
const MAX_HEADER: usize = 14;

/// Passes a WebSocket's incoming bytes through, failing with
/// [`PayloadError::Overflow`] as soon as a frame header announces more than `max`
/// bytes.
pub(crate) struct FrameGuard<S> {
    inner: S,
    max: u64,
    /// The part of a header that has arrived so far.
    header: Vec<u8>,
    /// Payload bytes of the current frame still to pass.
    payload_left: u64,
    /// Set once a header failed to parse: actix's parser refuses it the same way, so
    /// there is nothing left to guard.
    gave_up: bool,
    tripped: bool,
}

impl<S> FrameGuard<S> {
    /// Guards `inner`, a client's bytes from the first frame on.
    pub(crate) fn new(inner: S, max: usize) -> FrameGuard<S> {
        FrameGuard {
            inner,
            max: u64::try_from(max).unwrap_or(u64::MAX),
            header: Vec::with_capacity(MAX_HEADER),
            payload_left: 0,
            gave_up: false,
            tripped: false,
        }
    }

    /// Follows the frames in `bytes`; `false` if one announces too many bytes.
    fn scan(&mut self, mut bytes: &[u8]) -> bool {
        while !bytes.is_empty() && !self.gave_up {
            if self.payload_left > 0 {
                let passed = usize::try_from(self.payload_left)
                    .unwrap_or(usize::MAX)
                    .min(bytes.len());
                self.payload_left -= passed as u64;
                bytes = &bytes[passed..];
                continue;
            }
            let before = self.header.len();
            let taken = (MAX_HEADER - before).min(bytes.len());
            self.header.extend_from_slice(&bytes[..taken]);
            let mut cursor = Cursor::new(self.header.as_slice());
            match FrameHeader::parse(&mut cursor) {
                Ok(Some((_, length))) => {
                    let used = usize::try_from(cursor.position()).unwrap_or(MAX_HEADER) - before;
                    bytes = &bytes[used..];
                    self.header.clear();
                    if length > self.max {
                        return false;
                    }
                    self.payload_left = length;
                }
                // Every byte was taken: a header is at most MAX_HEADER bytes long.
                Ok(None) => bytes = &[],
                Err(_) => self.gave_up = true,
            }
        }
        true
    }
}

impl<S> Stream for FrameGuard<S>
where
    S: Stream<Item = Result<Bytes, PayloadError>> + Unpin,
{
    type Item = Result<Bytes, PayloadError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.tripped {
            return Poll::Ready(None);
        }
        let item = ready!(Pin::new(&mut self.inner).poll_next(cx));
        Poll::Ready(match item {
            Some(Ok(bytes)) if !self.scan(&bytes) => {
                self.tripped = true;
                Some(Err(PayloadError::Overflow))
            }
            other => other,
        })
    }
}

/// How a client broke the protocol, and so how its socket is closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Breach {
    /// A message over the size limit, in one frame or in fragments: 1009.
    TooLarge,
    /// A text message that is not UTF-8: 1007 (RFC 6455 §8.1).
    NotUtf8,
    /// Anything else (an unmasked frame, a bad opcode, reserved bits): 1002.
    Protocol,
}

impl Breach {
    /// What a read error means.
    pub(crate) fn of(error: &ProtocolError) -> Breach {
        let ProtocolError::Io(io) = error else {
            return match error {
                ProtocolError::Overflow => Breach::TooLarge,
                _ => Breach::Protocol,
            };
        };
        let inner = io.get_ref();
        if inner
            .and_then(|inner| inner.downcast_ref::<PayloadError>())
            .is_some_and(|error| matches!(error, PayloadError::Overflow))
        {
            return Breach::TooLarge;
        }
        let text = io.to_string();
        // actix-ws reports oversized fragments, and text that is not UTF-8, only as
        // I/O errors with these texts.
        if text.contains("maximum continuation size") {
            Breach::TooLarge
        } else if io.kind() == std::io::ErrorKind::InvalidData
            && (inner.is_some_and(|inner| inner.is::<std::str::Utf8Error>())
                || text.contains("utf-8"))
        {
            Breach::NotUtf8
        } else {
            Breach::Protocol
        }
    }

    /// The close code it earns.
    pub(crate) fn close_code(self) -> CloseCode {
        match self {
            Breach::TooLarge => CloseCode::Size,
            Breach::NotUtf8 => CloseCode::Invalid,
            Breach::Protocol => CloseCode::Protocol,
        }
    }
}

#[cfg(test)]
mod tests {
    use futures_util::StreamExt;
    use futures_util::stream;

    use super::*;

    /// A masked frame header announcing `length` bytes.
    fn header(length: u64) -> Vec<u8> {
        let mut bytes = vec![0x81];
        if length < 126 {
            bytes.push(0x80 | length as u8);
        } else if length <= u64::from(u16::MAX) {
            bytes.push(0x80 | 126);
            bytes.extend_from_slice(&(length as u16).to_be_bytes());
        } else {
            bytes.push(0x80 | 127);
            bytes.extend_from_slice(&length.to_be_bytes());
        }
        bytes.extend_from_slice(&[1, 2, 3, 4]);
        bytes
    }

    async fn guarded(chunks: Vec<Vec<u8>>, max: usize) -> Vec<Result<usize, String>> {
        let inner = stream::iter(chunks.into_iter().map(|chunk| Ok(Bytes::from(chunk))));
        FrameGuard::new(inner, max)
            .map(|item| item.map(|bytes| bytes.len()).map_err(|e| e.to_string()))
            .collect()
            .await
    }

    #[tokio::test]
    async fn frames_within_the_limit_pass_untouched() {
        let mut bytes = header(5);
        bytes.extend_from_slice(b"hello");
        bytes.extend(header(300));
        bytes.extend(vec![b'x'; 300]);
        // Split everywhere, headers included.
        let chunks: Vec<Vec<u8>> = bytes.chunks(3).map(<[u8]>::to_vec).collect();
        let results = guarded(chunks, 300).await;
        assert!(results.iter().all(Result::is_ok), "{results:?}");
        let total: usize = results.into_iter().map(Result::unwrap).sum();
        assert_eq!(total, 5 + 300 + header(5).len() + header(300).len());
    }

    #[tokio::test]
    async fn a_header_announcing_too_much_ends_the_stream_at_once() {
        let mut first = header(2);
        first.extend_from_slice(b"hi");
        let big = header(1 << 62);
        let (start, end) = big.split_at(5);
        let results = guarded(vec![first, start.to_vec(), end.to_vec(), vec![0; 10]], 8192).await;
        assert_eq!(results.len(), 3, "{results:?}");
        assert!(results[0].is_ok() && results[1].is_ok());
        assert!(results[2].is_err());
    }

    #[test]
    fn read_errors_map_to_close_codes() {
        let not_utf8 = String::from_utf8(vec![0xff, 0xfe])
            .unwrap_err()
            .utf8_error();
        let cases = [
            (ProtocolError::Overflow, CloseCode::Size),
            (
                ProtocolError::Io(std::io::Error::other(PayloadError::Overflow)),
                CloseCode::Size,
            ),
            (
                ProtocolError::Io(std::io::Error::other("Exceeded maximum continuation size")),
                CloseCode::Size,
            ),
            (
                ProtocolError::Io(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    not_utf8,
                )),
                CloseCode::Invalid,
            ),
            (
                ProtocolError::Io(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    not_utf8.to_string(),
                )),
                CloseCode::Invalid,
            ),
            (ProtocolError::UnmaskedFrame, CloseCode::Protocol),
        ];
        for (error, code) in cases {
            assert_eq!(Breach::of(&error).close_code(), code, "{error:?}");
        }
    }
}
