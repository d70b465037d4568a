/** Placeholder page: SPEC.md shows only a plain title. */
export default function FeaturesPage() {
  return <h1>Features Page</h1>;
}
