import ArgumentParser

@main
struct ProteinAR: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "proteinar",
        abstract: "Read protein structures and turn them into AR-ready models.",
        subcommands: [InfoCommand.self, ConvertCommand.self, RenderCommand.self, ServeCommand.self, AdminCommand.self, FetchCommand.self, SearchCommand.self,
                      LibraryCommand.self, DSSPCommand.self, DesignCommand.self, IdentifyCommand.self, InteractionsCommand.self, SuperposeCommand.self, MorphCommand.self,
                      BenchmarkCommand.self, BenchInteractionsCommand.self, BenchmarkDesignCommand.self, BenchRoomsCommand.self, FuzzCommand.self]
    )
}
