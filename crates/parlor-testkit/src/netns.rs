//! Network namespaces for the partition tests: a namespace of a test's own, joined to the
//! machine's (root) namespace by veth pairs, one per path a test may cut on its own (a
//! node's clients, its PostgreSQL, its Redis), and the cut itself.
//!
//! A cut is a real partition: each end of the pair is told the other's address lives at
//! a hardware address nobody has, so every packet either way is dropped by the veth it
//! arrives at. Established connections hang (nothing is reset, nothing is refused) and
//! new ones wait for SYNs that are never answered; healing removes the false entries,
//! and TCP's retransmissions carry on. (The machine's kernel has neither `netem` nor tc
//! classifiers, and a link set down answers new connections at once with "no route to
//! host".)
//!
//! Names are unique per run (`parlor-<pid>-<random>`, and veths named after it), so
//! parallel runs do not clash; a namespace is deleted, with its veths, when dropped, even
//! when the test panics, and namespaces left by a run whose process is gone (killed
//! before its drops ran) are deleted as the next one is made. Needs root and `ip`
//! (iproute2).

use std::net::Ipv4Addr;
use std::process::Command;

/// What went wrong making or changing a namespace.
#[derive(Debug, thiserror::Error)]
pub enum NetnsError {
    /// `ip` could not be run at all.
    #[error("could not run `ip` (install iproute2): {0}")]
    NoIp(#[source] std::io::Error),
    /// `ip` ran and refused.
    #[error(
        "`ip {command}` failed: {stderr} (network namespaces need root, or CAP_NET_ADMIN and CAP_SYS_ADMIN)"
    )]
    Refused {
        /// The arguments given to `ip`.
        command: String,
        /// What it said.
        stderr: String,
    },
    /// No free private subnet was found for the veths.
    #[error("no free 10.x.y.0/24 subnet for the veths after {0} tries: free one (`ip -4 route`)")]
    NoSubnet(usize),
}

/// A veth pair between the root namespace and a test's namespace, a /30 of its own.
#[derive(Clone, Debug)]
pub struct Link {
    /// The root namespace's end.
    root_dev: String,
    /// The test namespace's end.
    ns_dev: String,
    /// The namespace it joins.
    namespace: String,
    /// The root end's address: where a forwarder in the root namespace listens.
    pub root_ip: Ipv4Addr,
    /// The namespace end's address: where a server in the namespace listens.
    pub ns_ip: Ipv4Addr,
}

/// The hardware address cut links' packets are sent to: locally administered, and no
/// interface's, so the receiving veth drops every frame.
const NOBODY: &str = "02:00:00:00:00:01";

impl Link {
    /// Cuts the link: every packet either way is dropped from now on.
    pub fn cut(&self) -> Result<(), NetnsError> {
        let (root_ip, ns_ip) = (self.root_ip.to_string(), self.ns_ip.to_string());
        ip(&[
            "neigh",
            "replace",
            &ns_ip,
            "lladdr",
            NOBODY,
            "nud",
            "permanent",
            "dev",
            &self.root_dev,
        ])?;
        ip(&[
            "-n",
            &self.namespace,
            "neigh",
            "replace",
            &root_ip,
            "lladdr",
            NOBODY,
            "nud",
            "permanent",
            "dev",
            &self.ns_dev,
        ])
    }

    /// Heals the link: each end finds the other again (ARP), and what TCP retransmits
    /// gets through.
    pub fn heal(&self) -> Result<(), NetnsError> {
        let (root_ip, ns_ip) = (self.root_ip.to_string(), self.ns_ip.to_string());
        ip(&["neigh", "del", &ns_ip, "dev", &self.root_dev])?;
        ip(&[
            "-n",
            &self.namespace,
            "neigh",
            "del",
            &root_ip,
            "dev",
            &self.ns_dev,
        ])
    }
}

/// A network namespace of a test's own with its links to the root namespace; deleted,
/// with them, when dropped.
#[derive(Debug)]
pub struct NetNamespace {
    name: String,
    links: Vec<Link>,
}

impl NetNamespace {
    /// A new namespace, its loopback up, with `links` veth pairs to the root namespace.
    pub fn new(links: usize) -> Result<NetNamespace, NetnsError> {
        sweep_leftovers();
        let tag: u32 = rand::random();
        let name = format!("parlor-{}-{tag:08x}", std::process::id());
        ip(&["netns", "add", &name])?;
        // From here on, a failure deletes what was made.
        let mut namespace = NetNamespace {
            name,
            links: Vec::new(),
        };
        ip(&["-n", &namespace.name, "link", "set", "lo", "up"])?;
        let subnet = free_subnet()?;
        for index in 0..links {
            let link = namespace.add_link(tag, subnet, index)?;
            namespace.links.push(link);
        }
        Ok(namespace)
    }

    /// The namespace's name, for `ip netns exec`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The `index`th link.
    ///
    /// # Panics
    ///
    /// If the namespace was made with fewer links.
    pub fn link(&self, index: usize) -> &Link {
        &self.links[index]
    }

    /// Makes link `index`: a veth pair, one end moved into the namespace, both up and
    /// addressed in the `index`th /30 of `subnet`.
    fn add_link(&self, tag: u32, subnet: [u8; 3], index: usize) -> Result<Link, NetnsError> {
        let offset = u8::try_from(index * 4).map_err(|_| NetnsError::NoSubnet(0))?;
        let [a, b, c] = subnet;
        let link = Link {
            root_dev: format!("pv{tag:08x}h{index}"),
            ns_dev: format!("pv{tag:08x}n{index}"),
            namespace: self.name.clone(),
            root_ip: Ipv4Addr::new(a, b, c, offset + 1),
            ns_ip: Ipv4Addr::new(a, b, c, offset + 2),
        };
        let (root, inside) = (&link.root_dev, &link.ns_dev);
        ip(&["link", "add", root, "type", "veth", "peer", "name", inside])?;
        ip(&["link", "set", inside, "netns", &self.name])?;
        ip(&["addr", "add", &format!("{}/30", link.root_ip), "dev", root])?;
        ip(&["link", "set", root, "up"])?;
        let ns_address = format!("{}/30", link.ns_ip);
        ip(&["-n", &self.name, "addr", "add", &ns_address, "dev", inside])?;
        ip(&["-n", &self.name, "link", "set", inside, "up"])?;
        Ok(link)
    }
}

impl Drop for NetNamespace {
    fn drop(&mut self) {
        // Deleting the namespace deletes the veths in it, and with them their root
        // ends; a root end whose other end never moved in goes by name.
        let _ = ip(&["netns", "del", &self.name]);
        for link in &self.links {
            let _ = ip(&["link", "del", &link.root_dev]);
        }
    }
}

/// Runs `ip args`.
fn ip(args: &[&str]) -> Result<(), NetnsError> {
    let output = Command::new("ip")
        .args(args)
        .output()
        .map_err(NetnsError::NoIp)?;
    if output.status.success() {
        return Ok(());
    }
    Err(NetnsError::Refused {
        command: args.join(" "),
        stderr: String::from_utf8_lossy(&output.stderr).trim().to_owned(),
    })
}

/// What `ip args` printed, or nothing if it failed.
fn ip_output(args: &[&str]) -> String {
    Command::new("ip")
        .args(args)
        .output()
        .map(|output| String::from_utf8_lossy(&output.stdout).into_owned())
        .unwrap_or_default()
}

/// A 10.x.y.0/24 that no route of the root namespace touches, picked at random.
fn free_subnet() -> Result<[u8; 3], NetnsError> {
    const TRIES: usize = 50;
    let routes = ip_output(&["-4", "route", "show", "table", "all"]);
    for _ in 0..TRIES {
        let (b, c): (u8, u8) = (rand::random_range(64..=127), rand::random());
        let prefix = format!("10.{b}.{c}.");
        if !routes.contains(&prefix) && !routes.contains(&format!("10.{b}.0.0")) {
            return Ok([10, b, c]);
        }
    }
    Err(NetnsError::NoSubnet(TRIES))
}

/// Deletes the namespaces of runs whose process has gone: what a killed run left.
fn sweep_leftovers() {
    for line in ip_output(&["netns", "list"]).lines() {
        let name = line.split_whitespace().next().unwrap_or_default();
        let Some(pid) = name
            .strip_prefix("parlor-")
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if !std::path::Path::new(&format!("/proc/{pid}")).exists() {
            let _ = ip(&["netns", "del", name]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::{TcpListener, TcpStream};

    /// Connects from inside `namespace` to `address` and sends `text`, echoed back:
    /// `Ok` with the echo, or what went wrong within `patience`.
    fn round_trip_from(namespace: &str, address: &str, patience: u64) -> Result<String, String> {
        // A child in the namespace: bash's /dev/tcp, with a limit on the whole exchange.
        let script = format!(
            "exec 3<>/dev/tcp/{}/{} && echo hello >&3 && read -r line <&3 && echo \"$line\"",
            address.split(':').next().unwrap_or_default(),
            address.split(':').nth(1).unwrap_or_default(),
        );
        let output = Command::new("ip")
            .args(["netns", "exec", namespace, "timeout", &patience.to_string()])
            .args(["bash", "-c", &script])
            .output()
            .map_err(|error| error.to_string())?;
        if output.status.success() {
            Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
        } else {
            Err(format!(
                "status {:?}: {}",
                output.status.code(),
                String::from_utf8_lossy(&output.stderr).trim()
            ))
        }
    }

    /// An echo server on `ip`, one line per connection.
    fn echo_on(ip: Ipv4Addr) -> std::net::SocketAddr {
        let listener = TcpListener::bind((ip, 0)).unwrap();
        let address = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            for stream in listener.incoming().map_while(Result::ok) {
                std::thread::spawn(move || echo_lines(stream));
            }
        });
        address
    }

    fn echo_lines(mut stream: TcpStream) {
        let mut buffer = [0; 256];
        while let Ok(read) = stream.read(&mut buffer) {
            if read == 0 || stream.write_all(&buffer[..read]).is_err() {
                return;
            }
        }
    }

    #[test]
    fn a_cut_link_drops_packets_until_healed_and_the_namespace_goes_when_dropped() {
        let namespace = match NetNamespace::new(2) {
            Ok(namespace) => namespace,
            Err(error) if std::env::var_os("CI").is_none() => {
                eprintln!("SKIPPED: no network namespaces here: {error}");
                return;
            }
            Err(error) => panic!("network namespaces are needed under CI: {error}"),
        };
        let (cut, other) = (namespace.link(0).clone(), namespace.link(1).clone());
        let through_cut = echo_on(cut.root_ip).to_string();
        let through_other = echo_on(other.root_ip).to_string();
        assert_eq!(
            round_trip_from(namespace.name(), &through_cut, 10),
            Ok("hello".into())
        );

        cut.cut().unwrap();
        // Not refused, not reset: the connection waits, and `timeout` ends it (124).
        let hung = round_trip_from(namespace.name(), &through_cut, 2);
        assert!(
            hung.as_ref()
                .is_err_and(|why| why.starts_with("status Some(124)")),
            "{hung:?}"
        );
        assert_eq!(
            round_trip_from(namespace.name(), &through_other, 10),
            Ok("hello".into()),
            "the other link is untouched"
        );

        cut.heal().unwrap();
        assert_eq!(
            round_trip_from(namespace.name(), &through_cut, 10),
            Ok("hello".into())
        );

        let name = namespace.name().to_owned();
        drop(namespace);
        assert!(
            !ip_output(&["netns", "list"]).contains(&name),
            "{name} was deleted"
        );
        assert!(
            !ip_output(&["link", "show"]).contains(&cut.root_dev),
            "its veths too"
        );
    }
}
