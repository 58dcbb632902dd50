// Compile-time stub of the Play Billing Library 7 API (the classes and members PlayBillingDeviceStore uses), so that
// Clients/ShopkeeperAndroid/check type-checks it without the Android SDK. Never shipped: an app gets the real library
// from Google Maven (build.gradle.kts). Bodies throw; signatures follow developer.android.com.
package com.android.billingclient.api;

public final class BillingFlowParams {
    public static Builder newBuilder() { throw new UnsupportedOperationException("stub"); }

    public static final class Builder {
        public Builder setProductDetailsParamsList(java.util.List<ProductDetailsParams> list) { throw new UnsupportedOperationException("stub"); }
        public Builder setObfuscatedAccountId(String obfuscatedAccountId) { throw new UnsupportedOperationException("stub"); }
        public BillingFlowParams build() { throw new UnsupportedOperationException("stub"); }
    }

    public static final class ProductDetailsParams {
        public static Builder newBuilder() { throw new UnsupportedOperationException("stub"); }

        public static final class Builder {
            public Builder setProductDetails(ProductDetails productDetails) { throw new UnsupportedOperationException("stub"); }
            public Builder setOfferToken(String offerToken) { throw new UnsupportedOperationException("stub"); }
            public ProductDetailsParams build() { throw new UnsupportedOperationException("stub"); }
        }
    }
}
