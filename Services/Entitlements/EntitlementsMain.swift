import ShopkeeperHTTP

@main
struct EntitlementsMain {
    static func main() async {
        ServiceMain.useEventLoopsAsGlobalExecutor()
        await ServiceMain.run(service: "entitlements") { environment, metrics in
            try await buildApplication(settings: try EntitlementsSettings.read(from: environment), metrics: metrics)
        }
    }
}
