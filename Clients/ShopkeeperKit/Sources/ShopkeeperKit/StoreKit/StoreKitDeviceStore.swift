#if canImport(StoreKit)
    import Foundation
    import StoreKit

    /// The App Store on an Apple device, through StoreKit 2. Kept small on purpose: every value is mapped by
    /// ``StoreKitMapping``, which is tested on every platform.
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
    public struct StoreKitDeviceStore: DeviceStore {
        /// The App Store.
        public var platform: StorePlatform { .appStore }

        /// StoreKit's device store.
        public init() {}

        /// Development for sandbox, TestFlight and Xcode builds (from `AppTransaction` where it exists).
        public func buildKind() async -> BuildKind {
            if #available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, *) {
                if let result = try? await AppTransaction.shared {
                    return StoreKitMapping.buildKind(
                        environment: result.unsafePayloadValue.environment.rawValue, receiptFileName: nil)
                }
            }
            return StoreKitMapping.buildKind(
                environment: nil, receiptFileName: Bundle.main.appStoreReceiptURL?.lastPathComponent)
        }

        /// Buys with `appAccountToken` (and quantity for consumables).
        public func purchase(_ request: DevicePurchaseRequest) async throws(ShopkeeperError) -> DeviceTransaction? {
            do {
                guard let product = try await Product.products(for: [request.storeProductID]).first else {
                    throw ShopkeeperError.productUnavailable(request.storeProductID)
                }
                var options: Set<Product.PurchaseOption> = [.appAccountToken(request.appAccountToken)]
                if let quantity = StoreKitMapping.purchaseQuantity(request) { options.insert(.quantity(quantity)) }
                if let offer = request.promotionalOffer, let offerID = offer.offerID, let classic = offer.signature,
                    let signature = Data(base64Encoded: classic.signature)
                {
                    options.insert(
                        .promotionalOffer(
                            offerID: offerID, keyID: classic.keyID, nonce: classic.nonce, signature: signature,
                            timestamp: Int(classic.timestamp)))
                }
                switch try await product.purchase(options: options) {
                case .success(let result): return Self.map(result)
                case .userCancelled, .pending: return nil
                @unknown default: return nil
                }
            } catch let error as ShopkeeperError {
                throw error
            } catch {
                throw .deviceStore(String(describing: error))
            }
        }

        /// `Transaction.unfinished`.
        public func unfinishedTransactions() async throws(ShopkeeperError) -> [DeviceTransaction] {
            var found: [DeviceTransaction] = []
            for await result in Transaction.unfinished { found.append(Self.map(result)) }
            return found
        }

        /// `Transaction.currentEntitlements`: non-consumables and subscriptions in force.
        public func currentEntitlements() async throws(ShopkeeperError) -> [DeviceTransaction] {
            var found: [DeviceTransaction] = []
            for await result in Transaction.currentEntitlements { found.append(Self.map(result)) }
            return found
        }

        /// Finishes the unfinished transaction with this id.
        public func finish(_ transaction: DeviceTransaction) async throws(ShopkeeperError) {
            for await result in Transaction.unfinished where String(result.unsafePayloadValue.id) == transaction.id {
                await result.unsafePayloadValue.finish()
            }
        }

        /// `Transaction.updates`.
        public func transactionUpdates() -> AsyncStream<DeviceTransaction> {
            AsyncStream { continuation in
                let task = Task {
                    for await result in Transaction.updates { continuation.yield(Self.map(result)) }
                    continuation.finish()
                }
                continuation.onTermination = { _ in task.cancel() }
            }
        }

        /// `Product.products(for:)` in the device's storefront (`Storefront.current`).
        public func products(for storeProductIDs: [String]) async throws(ShopkeeperError) -> [StoreProduct] {
            let products: [Product]
            do { products = try await Product.products(for: storeProductIDs) } catch {
                throw .deviceStore(String(describing: error))
            }
            let storefront = await Storefront.current?.countryCode
            return products.map { Self.map($0, storefront: storefront) }
        }

        /// `AppStore.canMakePayments`.
        public func canMakePayments() async -> Bool { AppStore.canMakePayments }

        /// `Storefront.current`'s country code (alpha-3, `USA`).
        public func currentStorefront() async -> String? { await Storefront.current?.countryCode }

        /// `AppTransaction.shared`'s JWS (iOS 16 and later; sent even when StoreKit could not verify it: Shopkeeper
        /// verifies on the server). `nil` before iOS 16.
        public func appTransaction() async throws(ShopkeeperError) -> String? {
            guard #available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, *) else { return nil }
            do { return try await AppTransaction.shared.jwsRepresentation } catch {
                throw .deviceStore(String(describing: error))
            }
        }

        static func map(_ product: Product, storefront: String?) -> StoreProduct {
            StoreProduct(
                id: product.id, displayName: product.displayName, description: product.description,
                displayPrice: product.displayPrice, price: product.price,
                currencyCode: product.priceFormatStyle.currencyCode, storefront: storefront,
                subscriptionPeriod: product.subscription.flatMap { period($0.subscriptionPeriod) },
                introductoryOffer: product.subscription?.introductoryOffer.flatMap(map))
        }

        static func map(_ offer: Product.SubscriptionOffer) -> IntroductoryOffer? {
            let mode: IntroductoryOffer.PaymentMode
            switch offer.paymentMode {
            case .freeTrial: mode = .freeTrial
            case .payAsYouGo: mode = .payAsYouGo
            case .payUpFront: mode = .payUpFront
            default: return nil
            }
            guard let period = period(offer.period) else { return nil }
            return IntroductoryOffer(
                paymentMode: mode, period: period, periodCount: offer.periodCount, price: offer.price,
                displayPrice: offer.displayPrice)
        }

        static func period(_ period: Product.SubscriptionPeriod) -> String? {
            let unit: StoreKitMapping.PeriodUnit
            switch period.unit {
            case .day: unit = .day
            case .week: unit = .week
            case .month: unit = .month
            case .year: unit = .year
            @unknown default: return nil
            }
            return StoreKitMapping.isoPeriod(value: period.value, unit: unit)
        }

        static func map(_ result: VerificationResult<Transaction>) -> DeviceTransaction {
            let transaction = result.unsafePayloadValue
            return StoreKitMapping.deviceTransaction(
                id: transaction.id, productID: transaction.productID, jwsRepresentation: result.jwsRepresentation,
                appAccountToken: transaction.appAccountToken, productTypeRawValue: transaction.productType.rawValue)
        }
    }
#endif
