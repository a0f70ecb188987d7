from validate import invalid_addresses

addrs = ["x@y.z", "", "@a.b", "q@", "ok@host.io", "no"]
assert invalid_addresses(addrs) == ["", "@a.b", "q@", "no"]
