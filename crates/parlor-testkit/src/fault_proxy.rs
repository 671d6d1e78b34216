//! A TCP proxy a test puts between a server and a service (PostgreSQL, Redis) to make
//! that service fail as networks and databases do: connections reset, a black hole
//! (connections stay open and nothing gets through, as in a partition or a stalled
//! primary), or every chunk delayed; and healed again.
//!
//! A black hole holds what was sent rather than dropping it, as TCP retransmits across a
//! partition: once healed, what was held goes through and the connections carry on.
//! A black hole can also begin by itself at a given answer of the service, which is
//! then held: a request done but its acknowledgement lost (a `COMMIT` that committed).
//! While the proxy resets, a new connection is accepted and reset at once; while it
//! black-holes, a new connection is accepted and held, reaching the service only once
//! the proxy is healed.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// What the proxy does to the traffic it relays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Nothing: every byte is relayed at once.
    None,
    /// Every connection is reset (RST), and each new one as soon as it is accepted.
    Reset,
    /// Nothing gets through either way, and nothing is closed: the bytes wait in the
    /// proxy until it is healed.
    BlackHole,
    /// Every chunk of bytes, either way, is relayed this long after it arrived.
    Delay(Duration),
    /// Everything is relayed until the service sends, on any connection, a chunk that
    /// holds these bytes; that chunk is held, and from then on the proxy is a
    /// [`Fault::BlackHole`]. What the service answered so is done, but its answer lost.
    /// Only plain traffic can be matched: a client must not use TLS through it.
    LoseAnswer(&'static [u8]),
}

/// A proxy on 127.0.0.1 (or an address given) and a port of its own to a target `host:port`; stops (and drops
/// every connection) when dropped.
pub struct FaultProxy {
    address: SocketAddr,
    fault: Arc<watch::Sender<Fault>>,
    accepting: JoinHandle<()>,
    /// Cloned by the task that accepts, and by every connection the proxy holds for as
    /// long as it does.
    alive: Arc<()>,
}

impl FaultProxy {
    /// Starts relaying 127.0.0.1:<a free port> to `target` (`host:port`), faultless.
    pub async fn start(target: &str) -> io::Result<FaultProxy> {
        FaultProxy::start_on(std::net::Ipv4Addr::LOCALHOST.into(), target).await
    }

    /// Starts relaying `ip`:<a free port> to `target` (`host:port`), faultless: a
    /// forwarder on a veth's address, for a server in another network namespace.
    pub async fn start_on(ip: std::net::IpAddr, target: &str) -> io::Result<FaultProxy> {
        let listener = TcpListener::bind((ip, 0)).await?;
        let address = listener.local_addr()?;
        let fault = Arc::new(watch::Sender::new(Fault::None));
        let alive = Arc::new(());
        let accepting = tokio::spawn(accept(
            listener,
            target.to_owned(),
            fault.clone(),
            alive.clone(),
        ));
        Ok(FaultProxy {
            address,
            fault,
            accepting,
            alive,
        })
    }

    /// Where the proxy listens: what the server under test is pointed at.
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// Makes the proxy do `fault` from now on, to every connection (`Fault::None` heals
    /// it).
    pub fn set(&self, fault: Fault) {
        self.fault.send_replace(fault);
    }

    /// Resets every connection, and every new one (see [`Fault::Reset`]).
    pub fn reset(&self) {
        self.set(Fault::Reset);
    }

    /// Lets nothing through and closes nothing (see [`Fault::BlackHole`]).
    pub fn black_hole(&self) {
        self.set(Fault::BlackHole);
    }

    /// Delays every chunk by `by` (see [`Fault::Delay`]).
    pub fn delay(&self, by: Duration) {
        self.set(Fault::Delay(by));
    }

    /// How many connections the proxy holds: relaying, or waiting for a black hole to
    /// end. Once it resets, this falls to 0 as every connection is reset.
    pub fn connections(&self) -> usize {
        // Less this handle's and the accepting task's.
        Arc::strong_count(&self.alive).saturating_sub(2)
    }

    /// Relays everything at once again.
    pub fn heal(&self) {
        self.set(Fault::None);
    }
}

impl Drop for FaultProxy {
    fn drop(&mut self) {
        self.accepting.abort();
        // Every connection's task sees the sender go and ends, closing its sockets.
    }
}

/// Accepts connections on `listener` and relays each to `target` under `fault`.
async fn accept(
    listener: TcpListener,
    target: String,
    fault: Arc<watch::Sender<Fault>>,
    alive: Arc<()>,
) {
    while let Ok((inbound, _)) = listener.accept().await {
        tokio::spawn(connection(
            inbound,
            target.clone(),
            fault.clone(),
            alive.clone(),
        ));
    }
}

/// One connection: reset at once under [`Fault::Reset`], held under
/// [`Fault::BlackHole`] until healed, then relayed both ways until either side closes
/// or the proxy resets it.
async fn connection(
    inbound: TcpStream,
    target: String,
    tripping: Arc<watch::Sender<Fault>>,
    _alive: Arc<()>,
) {
    let mut fault = tripping.subscribe();
    if !passable(&mut fault).await {
        reset(&inbound);
        return;
    }
    let Ok(outbound) = TcpStream::connect(&target).await else {
        reset(&inbound);
        return;
    };
    let _ = inbound.set_nodelay(true);
    let _ = outbound.set_nodelay(true);
    let (inbound_read, inbound_write) = inbound.into_split();
    let (outbound_read, outbound_write) = outbound.into_split();
    // Either way's end (a close, or a reset) ends the connection.
    tokio::select! {
        () = pipe(inbound_read, outbound_write, fault.clone(), None) => {}
        () = pipe(outbound_read, inbound_write, fault, Some(&tripping)) => {}
    }
}

/// Waits until bytes may pass (no black hole); `false` if the proxy resets, or has
/// gone, meanwhile.
async fn passable(fault: &mut watch::Receiver<Fault>) -> bool {
    match fault.wait_for(|fault| *fault != Fault::BlackHole).await {
        Ok(now) => *now != Fault::Reset,
        Err(_) => false,
    }
}

/// Relays bytes from `from` to `to` under `fault` until `from` closes, or the proxy
/// resets (both sockets are then reset as they are dropped). From the service, with
/// `tripping`, it begins the black hole of [`Fault::LoseAnswer`].
async fn pipe(
    mut from: OwnedReadHalf,
    mut to: OwnedWriteHalf,
    mut fault: watch::Receiver<Fault>,
    tripping: Option<&watch::Sender<Fault>>,
) {
    let mut chunk = vec![0; 16 * 1024];
    loop {
        if !passable(&mut fault).await {
            reset(from.as_ref());
            reset(to.as_ref());
            return;
        }
        let read = tokio::select! {
            read = from.read(&mut chunk) => read,
            // A change (a reset, a black hole) applies before the next read.
            changed = fault.changed() => {
                if changed.is_err() {
                    return;
                }
                continue;
            }
        };
        let length = match read {
            Ok(0) | Err(_) => return,
            Ok(length) => length,
        };
        let now = *fault.borrow();
        if let Fault::Delay(by) = now {
            tokio::time::sleep(by).await;
        }
        if let (Some(tripping), Fault::LoseAnswer(answer)) = (tripping, now)
            && holds(&chunk[..length], answer)
        {
            tripping.send_replace(Fault::BlackHole);
        }
        // What arrived as a black hole began waits for the proxy to heal.
        if !passable(&mut fault).await {
            reset(from.as_ref());
            reset(to.as_ref());
            return;
        }
        if to.write_all(&chunk[..length]).await.is_err() {
            return;
        }
    }
}

/// Whether `chunk` holds `bytes`.
fn holds(chunk: &[u8], bytes: &[u8]) -> bool {
    chunk.windows(bytes.len()).any(|window| window == bytes)
}

/// Closes `stream` with a reset (RST) rather than an orderly close, as a database that
/// went away does.
fn reset(stream: &TcpStream) {
    let _ = stream.set_zero_linger();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A server that echoes every byte back, on a port of its own.
    async fn echo() -> SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                tokio::spawn(async move {
                    let (mut read, mut write) = stream.split();
                    let _ = tokio::io::copy(&mut read, &mut write).await;
                });
            }
        });
        address
    }

    async fn round_trip(stream: &mut TcpStream, text: &[u8]) -> io::Result<Vec<u8>> {
        stream.write_all(text).await?;
        let mut back = vec![0; text.len()];
        stream.read_exact(&mut back).await?;
        Ok(back)
    }

    #[tokio::test]
    async fn it_relays_holds_in_a_black_hole_delays_and_resets() {
        let proxy = FaultProxy::start(&echo().await.to_string()).await.unwrap();
        let mut stream = TcpStream::connect(proxy.address()).await.unwrap();
        assert_eq!(round_trip(&mut stream, b"one").await.unwrap(), b"one");

        // In the black hole nothing comes back, and nothing is closed…
        proxy.black_hole();
        stream.write_all(b"two").await.unwrap();
        let mut back = [0; 3];
        let held = tokio::time::timeout(Duration::from_millis(300), stream.read(&mut back));
        assert!(held.await.is_err(), "nothing gets through a black hole");
        // …and a new connection is accepted but reaches nothing.
        let mut late = TcpStream::connect(proxy.address()).await.unwrap();
        late.write_all(b"late").await.unwrap();
        // Healed, what was held goes through.
        proxy.heal();
        stream.read_exact(&mut back).await.unwrap();
        assert_eq!(&back, b"two");
        let mut late_back = [0; 4];
        late.read_exact(&mut late_back).await.unwrap();
        assert_eq!(&late_back, b"late");

        proxy.delay(Duration::from_millis(20));
        assert_eq!(round_trip(&mut stream, b"slow").await.unwrap(), b"slow");

        proxy.reset();
        let broken = round_trip(&mut stream, b"gone").await;
        assert!(broken.is_err(), "{broken:?}");
        let mut refused = TcpStream::connect(proxy.address()).await.unwrap();
        assert!(round_trip(&mut refused, b"new").await.is_err());

        proxy.heal();
        let mut again = TcpStream::connect(proxy.address()).await.unwrap();
        assert_eq!(round_trip(&mut again, b"back").await.unwrap(), b"back");
    }

    #[tokio::test]
    async fn a_black_hole_begins_at_the_answer_it_waits_for() {
        let proxy = FaultProxy::start(&echo().await.to_string()).await.unwrap();
        proxy.set(Fault::LoseAnswer(b"done"));
        let mut stream = TcpStream::connect(proxy.address()).await.unwrap();
        assert_eq!(round_trip(&mut stream, b"plain").await.unwrap(), b"plain");
        stream.write_all(b"all done").await.unwrap();
        let mut back = [0; 8];
        let held = tokio::time::timeout(Duration::from_millis(300), stream.read(&mut back));
        assert!(held.await.is_err(), "the answer is held");
        let mut late = TcpStream::connect(proxy.address()).await.unwrap();
        late.write_all(b"late").await.unwrap();
        proxy.heal();
        stream.read_exact(&mut back).await.unwrap();
        assert_eq!(&back, b"all done", "the service had it, and answered");
        let mut late_back = [0; 4];
        late.read_exact(&mut late_back).await.unwrap();
        assert_eq!(
            &late_back, b"late",
            "a black hole held the later connection too"
        );
    }
}
