import ShopkeeperHTTP

@main
struct SandboxStoreMain {
    static func main() async {
        await ServiceMain.start(service: "sandbox-store") { environment, metrics in
            try await buildApplication(settings: try SandboxStoreSettings.read(from: environment), metrics: metrics)
        }
    }
}
