import Foundation
import SimctlCommand

// `run` streams its standard output as the clock advances; everything else comes back in `output`.
let output = Simctl.main(
    Array(CommandLine.arguments.dropFirst()),
    standardOutput: { bytes in FileHandle.standardOutput.write(Data(bytes)) })
FileHandle.standardOutput.write(Data(output.stdout.utf8))
FileHandle.standardError.write(Data(output.stderr.utf8))
exit(output.exitCode)
