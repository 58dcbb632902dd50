import ShopkeeperHTTP

@main
struct CatalogMain {
    static func main() async {
        ServiceMain.useEventLoopsAsGlobalExecutor()
        await ServiceMain.run(service: "catalog") { environment, metrics in
            try await buildApplication(settings: try CatalogSettings.read(from: environment), metrics: metrics)
        }
    }
}
