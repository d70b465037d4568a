import { Link } from '@tanstack/react-router';

export function CallToAction() {
  return (
    <section className="lp-cta" aria-labelledby="lp-cta-title">
      <div className="lp-wrap">
        <h2 id="lp-cta-title">Ready to talk with your visitors?</h2>
        <p>Join thousands of businesses. Set up in 5 minutes, free for 14 days, no credit card required.</p>
        <div className="lp-cta-row lp-center">
          <Link to="/register" className="lp-btn lp-btn-primary lp-btn-lg">
            Start Free Trial
          </Link>
        </div>
      </div>
    </section>
  );
}

export function Footer() {
  return (
    <footer className="lp-foot" id="about">
      <div className="lp-wrap">
        <div className="lp-foot-grid">
          <div>
            <h3>Parley</h3>
            <p>
              Live chat, an AI assistant that learns from your team, and visitor analytics — built for businesses that care about
              every conversation.
            </p>
          </div>
          <nav aria-label="Product">
            <h3>Product</h3>
            <ul>
              <li><a href="#demo-live-chat">Live Chat</a></li>
              <li><a href="#demo-ai">AI Assistant</a></li>
              <li><a href="#demo-analytics">Analytics</a></li>
              <li><a href="#pricing">Pricing</a></li>
            </ul>
          </nav>
          <nav aria-label="Company">
            <h3>Company</h3>
            <ul>
              <li><a href="#about">About</a></li>
              <li><a href="#testimonials">Customers</a></li>
              <li><Link to="/login">Sign In</Link></li>
              <li><Link to="/register">Start Free Trial</Link></li>
            </ul>
          </nav>
          <nav aria-label="Legal">
            <h3>Legal</h3>
            <ul>
              <li><Link to="/terms">Terms of Service</Link></li>
              <li><Link to="/privacy">Privacy Policy</Link></li>
            </ul>
          </nav>
        </div>
        <p className="lp-foot-bottom">© {new Date().getFullYear()} Parley. All rights reserved.</p>
      </div>
    </footer>
  );
}
