// Compile-time stub of the Play Billing Library 7 API (the classes and members PlayBillingDeviceStore uses), so that
// Clients/ShopkeeperAndroid/check type-checks it without the Android SDK. Never shipped: an app gets the real library
// from Google Maven (build.gradle.kts). Bodies throw; signatures follow developer.android.com.
package com.android.billingclient.api;

public abstract class BillingClient {
    public @interface BillingResponseCode {
        int SERVICE_TIMEOUT = -3;
        int FEATURE_NOT_SUPPORTED = -2;
        int SERVICE_DISCONNECTED = -1;
        int OK = 0;
        int USER_CANCELED = 1;
        int SERVICE_UNAVAILABLE = 2;
        int BILLING_UNAVAILABLE = 3;
        int ITEM_UNAVAILABLE = 4;
        int DEVELOPER_ERROR = 5;
        int ERROR = 6;
        int ITEM_ALREADY_OWNED = 7;
        int ITEM_NOT_OWNED = 8;
        int NETWORK_ERROR = 12;
    }

    public @interface ProductType {
        String INAPP = "inapp";
        String SUBS = "subs";
    }

    public static Builder newBuilder(android.content.Context context) { throw new UnsupportedOperationException("stub"); }

    public static final class Builder {
        public Builder setListener(PurchasesUpdatedListener listener) { throw new UnsupportedOperationException("stub"); }
        public Builder enablePendingPurchases(PendingPurchasesParams params) { throw new UnsupportedOperationException("stub"); }
        public BillingClient build() { throw new UnsupportedOperationException("stub"); }
    }

    public abstract boolean isReady();
    public abstract void startConnection(BillingClientStateListener listener);
    public abstract void endConnection();
    public abstract void queryProductDetailsAsync(QueryProductDetailsParams params, ProductDetailsResponseListener listener);
    public abstract BillingResult launchBillingFlow(android.app.Activity activity, BillingFlowParams params);
    public abstract void queryPurchasesAsync(QueryPurchasesParams params, PurchasesResponseListener listener);
    public abstract void acknowledgePurchase(AcknowledgePurchaseParams params, AcknowledgePurchaseResponseListener listener);
    public abstract void consumeAsync(ConsumeParams params, ConsumeResponseListener listener);
}
