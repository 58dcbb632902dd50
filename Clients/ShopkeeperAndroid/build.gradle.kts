// Documentation only: how an Android app builds ShopkeeperAndroid, as a library module of its own Gradle build with
// the Android Gradle Plugin. Nothing in this repository runs Gradle (there is no wrapper, and CI downloads nothing
// from Maven Central or Google Maven): `check` builds and tests the core with Debian's Kotlin compiler. The versions
// below are the ones the code is written against; this file itself is not built here.
//
// In the app's settings.gradle.kts:
//     include(":shopkeeper")
//     project(":shopkeeper").projectDir = file("../shopkeeper/Clients/ShopkeeperAndroid")
// and in the app module: implementation(project(":shopkeeper")).

plugins {
    id("com.android.library") version "8.5.2"
    id("org.jetbrains.kotlin.android") version "2.0.20"
}

android {
    namespace = "dev.shopkeeper.android"
    compileSdk = 34
    defaultConfig {
        // java.time and java.nio.file (the state file's atomic rename) need API 26, or core library desugaring.
        minSdk = 26
    }
    sourceSets {
        // The core and the Play Billing device store; stubs/playbilling (the compile-time stub `check` uses) is not
        // a source set, so the real library below is what the app gets.
        getByName("main").java.srcDirs("src/main/kotlin", "src/playbilling/kotlin")
        getByName("test").java.srcDirs("src/test/kotlin")
    }
    compileOptions {
        sourceCompatibility = JavaVersion.VERSION_1_8
        targetCompatibility = JavaVersion.VERSION_1_8
    }
    kotlinOptions {
        jvmTarget = "1.8"
    }
}

dependencies {
    implementation("com.android.billingclient:billing:7.1.1")
    implementation("org.jetbrains.kotlinx:kotlinx-coroutines-android:1.8.1")
    testImplementation("junit:junit:4.13.2")
}
