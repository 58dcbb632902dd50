import ShopkeeperHTTP

@main
struct CatalogMain {
    static func main() async {
        await ServiceMain.start(service: "catalog") { environment, metrics in
            try await buildApplication(settings: try CatalogSettings.read(from: environment), metrics: metrics)
        }
    }
}
