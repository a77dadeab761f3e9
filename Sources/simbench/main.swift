print("simbench: no benchmarks yet")
