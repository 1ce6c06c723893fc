print("netbench: under construction")
