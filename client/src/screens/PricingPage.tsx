/** Placeholder page: SPEC.md shows only a plain title. */
export default function PricingPage() {
  return <h1>Pricing Page</h1>;
}
