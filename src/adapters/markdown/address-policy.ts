/**
 * Which network addresses external link checks may connect to. Loopback, link-local, private,
 * shared, multicast and reserved ranges are refused by default: a link (or a redirect, or a host name
 * that resolves there) must not make the server probe its own machine or network. The check is made
 * on the address actually connected to (a custom DNS lookup), so DNS rebinding does not get around it.
 */
import dns from "node:dns";
import net from "node:net";

/**
 * The refused ranges, made on first use: a BlockList is a native handle, which the command line's start-up
 * snapshot could not hold (its build runs a check that loads this module: src/snapshot-warm-up.ts).
 */
let blocked: net.BlockList | undefined;
function blockedRanges(): net.BlockList {
  if (blocked) return blocked;
  const list = new net.BlockList();
  for (const [prefix, bits] of [
    ["0.0.0.0", 8], // "this network"
    ["10.0.0.0", 8],
    ["100.64.0.0", 10], // carrier-grade NAT
    ["127.0.0.0", 8],
    ["169.254.0.0", 16], // link-local (cloud metadata lives here)
    ["172.16.0.0", 12],
    ["192.0.0.0", 24],
    ["192.168.0.0", 16],
    ["198.18.0.0", 15], // benchmarking
    ["224.0.0.0", 4], // multicast
    ["240.0.0.0", 4], // reserved, broadcast
  ] as const)
    list.addSubnet(prefix, bits, "ipv4");
  for (const [prefix, bits] of [
    ["::", 128],
    ["::1", 128],
    ["fc00::", 7], // unique local
    ["fe80::", 10], // link-local
    ["fec0::", 10], // site-local (deprecated)
    ["ff00::", 8], // multicast
    ["64:ff9b:1::", 48], // local-use NAT64
  ] as const)
    list.addSubnet(prefix, bits, "ipv6");
  return (blocked = list);
}

/** The address without the IPv6 brackets `new URL().hostname` keeps. */
export function bare(address: string): string {
  return address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
}

/** True for an IP address in a loopback, link-local, private or reserved range (IPv4-mapped included). */
export function isPrivateAddress(address: string): boolean {
  const ip = bare(address);
  const family = net.isIP(ip);
  if (family === 0) return false;
  return blockedRanges().check(ip, family === 4 ? "ipv4" : "ipv6");
}

/** Raised (as a connect error) when a connection would go to a refused address. */
export class PrivateAddressError extends Error {
  readonly code = "EPRIVATEADDR";
  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super(
      `${host === address ? address : `${host} resolves to ${address}, which`} is a loopback, link-local or private address`,
    );
  }
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for net/tls.connect that resolves as usual and fails when any resolved address is
 * refused by `isRefused` (one bad address is enough: the connection could go to any of them).
 */
export function guardedLookup(isRefused: (address: string) => boolean = isPrivateAddress) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, "");
      const bad = addresses.find((a) => isRefused(a.address));
      if (bad) return callback(new PrivateAddressError(hostname, bad.address), "");
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first)
        return callback(Object.assign(new Error(`no address for ${hostname}`), { code: "ENOTFOUND" }), "");
      callback(null, first.address, first.family);
    });
  };
}
