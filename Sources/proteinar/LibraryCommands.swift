import ArgumentParser
import Foundation
import MoleculeLibrary
import PDBArchive
import Storage

struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Fetch entries from the RCSB PDB (or AlphaFold DB by UniProt accession) into the library.")

    @Argument(help: "PDB IDs (4HHB, pdb_00004hhb) or UniProt accessions (P69905).") var ids: [String]
    @OptionGroup var library: LibraryOptions

    func run() async throws {
        let parsed = try ids.map { text -> EntryID in
            guard let id = EntryID(text) else { throw CLIError("'\(text)' is not an entry id; expected \(EntryID.acceptedForms)") }
            return id
        }
        let service = try await openOrFail(library)
        var failed = 0
        for id in parsed {
            do {
                let record = try await service.fetch(id) { p in
                    if p.stage != "download" || p.fraction == 1 { FileHandle.standardError.write(Data("  \(p.message)\n".utf8)) }
                }
                print("\(record.id)\t\(record.title)\t\(record.atoms) atoms")
            } catch {
                failed += 1
                FileHandle.standardError.write(Data("proteinar fetch: \(id.libraryID): \(error)\n".utf8))
            }
        }
        try? await service.store.close()
        if failed > 0 { throw ExitCode.failure }
    }
}

struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "search", abstract: "Search the RCSB PDB by keywords.")

    @Argument(help: "Words to search for.") var words: [String]
    @Option(help: "First result (paging).") var start = 0
    @Option(help: "Results per page (1–100).") var rows = 10
    @Flag(help: "One JSON object instead of a table.") var json = false
    @OptionGroup var library: LibraryOptions

    func run() async throws {
        guard (1...100).contains(rows), start >= 0 else { throw CLIError("--rows must be 1 to 100 and --start at least 0") }
        let text = words.joined(separator: " ")
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { throw CLIError("give words to search for") }
        let client = ArchiveClient(endpoints: try library.serverConfiguration().endpoints)
        let results: SearchResults
        do { results = try await client.search(text, start: start, rows: rows) } catch { throw cliFailure(error) }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(results), as: UTF8.self))
            return
        }
        if results.hits.isEmpty { print("No entries match '\(text)'."); return }
        print("\(results.total) entries match '\(text)'; \(start + 1)–\(start + results.hits.count):")
        for h in results.hits {
            let resolution = h.resolution.map { String(format: "%.2f Å", $0) } ?? "—"
            print("\(h.id)\t\(h.releaseDate ?? "")\t\(h.method ?? "")\t\(resolution)\t\(h.title ?? "")")
        }
    }
}

struct LibraryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "library", abstract: "List, show and remove the library's molecules.",
        subcommands: [List.self, Show.self, Remove.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the library's molecules.")
        @Option(help: "Only molecules matching these words.") var filter: String?
        @Option(help: "How many (1–500).") var limit = 100
        @OptionGroup var library: LibraryOptions

        func run() async throws {
            guard (1...500).contains(limit) else { throw CLIError("--limit must be 1 to 500") }
            let service = try await openOrFail(library)
            let page = try await service.molecules(MoleculeQuery(text: filter, limit: limit, order: .id))
            if page.molecules.isEmpty { print(filter == nil ? "The library is empty." : "No molecule matches '\(filter ?? "")'.") }
            for m in page.molecules {
                print("\(m.id)\t\(m.source.rawValue)\t\(m.atoms) atoms\t\(m.title)")
            }
            try? await service.store.close()
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one molecule's details (JSON).")
        @Argument var id: String
        @OptionGroup var library: LibraryOptions

        func run() async throws {
            let service = try await openOrFail(library)
            let record: MoleculeRecord
            do { record = try await service.molecule(id: id) } catch { throw cliFailure(error) }
            print("\(record.id)  \(record.title)")
            if let d = record.description { print(d) }
            print("Source: \(record.source.rawValue)   Method: \(record.method ?? "—")   Resolution: \(record.resolution.map { String(format: "%.2f Å", $0) } ?? "—")")
            print("Atoms: \(record.atoms)   Residues: \(record.residues)   Chains: \(record.chains)   Format: \(record.format)")
            print(record.summaryJSON)
            try? await service.store.close()
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Remove molecules, their files and cached models.")
        @Argument var ids: [String]
        @OptionGroup var library: LibraryOptions

        func run() async throws {
            let service = try await openOrFail(library)
            var failed = 0
            for id in ids {
                do { try await service.remove(id: id); print("removed \(id)") } catch {
                    failed += 1
                    FileHandle.standardError.write(Data("proteinar library rm: \(error)\n".utf8))
                }
            }
            try? await service.store.close()
            if failed > 0 { throw ExitCode.failure }
        }
    }
}

func openOrFail(_ library: LibraryOptions) async throws -> LibraryService {
    do { return try await library.open() } catch { throw cliFailure(error) }
}
