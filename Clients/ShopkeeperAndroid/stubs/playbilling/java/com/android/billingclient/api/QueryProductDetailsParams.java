// Compile-time stub of the Play Billing Library 7 API (the classes and members PlayBillingDeviceStore uses), so that
// Clients/ShopkeeperAndroid/check type-checks it without the Android SDK. Never shipped: an app gets the real library
// from Google Maven (build.gradle.kts). Bodies throw; signatures follow developer.android.com.
package com.android.billingclient.api;

public final class QueryProductDetailsParams {
    public static Builder newBuilder() { throw new UnsupportedOperationException("stub"); }

    public static final class Builder {
        public Builder setProductList(java.util.List<Product> productList) { throw new UnsupportedOperationException("stub"); }
        public QueryProductDetailsParams build() { throw new UnsupportedOperationException("stub"); }
    }

    public static final class Product {
        public static Builder newBuilder() { throw new UnsupportedOperationException("stub"); }

        public static final class Builder {
            public Builder setProductId(String productId) { throw new UnsupportedOperationException("stub"); }
            public Builder setProductType(String productType) { throw new UnsupportedOperationException("stub"); }
            public Product build() { throw new UnsupportedOperationException("stub"); }
        }
    }
}
