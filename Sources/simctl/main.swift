import SimctlCommand

print("simctl \(simctlVersion)")
