import ShopkeeperHTTP

@main
struct EntitlementsMain {
    static func main() async {
        await ServiceMain.start(service: "entitlements") { environment, metrics in
            try await buildApplication(settings: try EntitlementsSettings.read(from: environment), metrics: metrics)
        }
    }
}
