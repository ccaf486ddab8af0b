export * from "./console"
